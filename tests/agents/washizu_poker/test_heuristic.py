"""The rule-based Washizu player: standard draws, betting by strength, beats random play."""
from __future__ import annotations

from parlor.agents.washizu_poker.heuristic import WashizuHeuristic
from parlor.training.evaluation import EvalConfig, evaluate
from tests.washizu_poker.helpers import CALL, DROP, PAT, discard, play, raise_by, rigged

OPTS = {"num_players": 3, "washizu": "none", "jokers": 0}
FILLER = ("2c 3c 4d 5d 7d", "2d 3d 4h 5h 8d")


def decide(game, state, seed: int = 0) -> int:
    agent = WashizuHeuristic(game, seed=seed)
    p = state.current_player
    return agent.act(game.observe(state, p), state.legal_mask(), state.view(p))


def test_stands_pat_with_a_made_straight_and_flush() -> None:
    for hand in ("8c 9d Th Js Qc", "2h 6h 9h Jh Kh"):
        game, state = rigged(hand, *FILLER, **OPTS)
        assert decide(game, state) == PAT


def test_keeps_a_pair_and_draws_three() -> None:
    game, state = rigged("Qc Qd 3h 7s 9c", *FILLER, **OPTS)
    assert decide(game, state) == discard(state, "3h 7s 9c")


def test_keeps_trips_and_two_pair() -> None:
    game, state = rigged("Kc Kd Kh 4s 9c", *FILLER, **OPTS)
    assert decide(game, state) in (discard(state, "4s 9c"), discard(state, "4s"), discard(state, "9c"))
    game, state = rigged("Kc Kd 9h 9s 4c", *FILLER, **OPTS)
    assert decide(game, state) == discard(state, "4c")


def test_draws_to_a_four_flush_unless_the_outs_are_visible_washizu_cards() -> None:
    # four spades: draw one for the flush. When every missing spade sits transparently in
    # the other hands (spades are the Washizu suit) there are no outs: no flush draw.
    game, state = rigged("2s 6s 9s Js Kd", *FILLER, **OPTS)
    assert decide(game, state) == discard(state, "Kd")
    spades_elsewhere = ("3s 4s 5s 7s 8s", "Ts Qs Ks As 3c")
    game, state = rigged("2s 6s 9s Js Kd", *spades_elsewhere, num_players=3, washizu="suit", washizu_cards="s",
                         jokers=0)
    assert decide(game, state) != discard(state, "Kd")


def test_raises_the_maximum_with_a_monster_and_drops_junk_facing_raises() -> None:
    game, state = rigged("Ac Ad Ah As Kc", *FILLER, **OPTS)
    play(state, PAT, PAT, PAT)
    assert decide(game, state) == raise_by(3)
    game, state = rigged("2c 3d 4h 5s 7c", "9d 9h 4s 5c 8d", "Td Jd Qs 2d 3s", **OPTS)
    play(state, PAT, PAT, PAT, CALL, raise_by(3), raise_by(1))
    assert state.current_player == 0 and state.view(0).to_call == 4
    assert decide(game, state) == DROP


def test_calls_a_cheap_bet_with_a_fair_hand() -> None:
    game, state = rigged("Jc Jh 6h 8s 9c", *FILLER, **OPTS)
    play(state, PAT, PAT, PAT)
    assert decide(game, state) in (CALL, raise_by(1))


def test_acts_the_same_for_the_same_seed_and_view() -> None:
    game, state = rigged("Qc Qd 3h 7s 9c", *FILLER, **OPTS)
    assert len({decide(game, state, seed=5) for _ in range(3)}) == 1


def test_beats_random_agents() -> None:
    config = EvalConfig(env="washizu_poker_v0", options={"num_players": 3}, agents=("heuristic", "random"), games=60, seed=1)
    heuristic, rand = evaluate(config)["agents"]
    assert heuristic["mean_reward"] - heuristic["ci95"] > 3.0 > 0 > rand["mean_reward"]
