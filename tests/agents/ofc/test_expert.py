"""The OFC expert (issue 32): its last street against brute force, its sampling against
what the seat has seen, its determinism, and a small-budget match."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from parlor import envs
from parlor.agents.episodes import decide, play_episode
from parlor.agents.ofc import expert as expert_module
from parlor.agents.ofc.expert import EXPERT_FL_VALUE, OFCExpert, later_turns
from parlor.agents.ofc.fantasyland import FANTASYLAND_VALUE
from parlor.agents.ofc.heuristic import OFCHeuristic
from parlor.agents.registry import make_agent
from parlor.envs.engine.game import ConfigError
from parlor.envs.ofc.scoring import evaluate_board, fl_entry_cards, score_hand
from parlor.envs.ofc_outlook.rollouts import DISCARD, place, turn_candidates


def advance(game, state, agents, stop) -> bool:
    """Play ``state`` on with ``agents`` (by seat) until ``stop(state)``; False if it ended first."""
    while not state.is_terminal():
        if stop(state):
            return True
        p = state.current_player
        state.apply(decide(agents[p], game, state, p))
    return False


def last_turn_positions(variant: str, players: int, hands: int, count: int):
    """States where the seat to act starts its last turn and every other board is finished."""
    game = envs.make_game("ofc_v0", variant=variant, num_players=players, num_hands=hands)
    agents = [OFCHeuristic(game, seed=s) for s in range(players)]

    def stop(state) -> bool:
        view = state.view(state.current_player)
        others_done = all(len(sum(view.rows[q], ())) == 13 for q in range(players) if q != view.player)
        first_card = len(view.pending) == (3 if variant == "pineapple" else 1)
        return not view.fantasyland[view.player] and others_done and first_card and not later_turns(view)

    found, seed = [], 0
    while len(found) < count:
        state = game.new_state(np.random.default_rng(seed))
        seed += 1
        if advance(game, state, agents, stop):
            found.append(state)
    return game, found


def brute_force(view, fl_value: float) -> list[float]:
    """Per candidate of the turn: the points of the finished board against the others' boards
    (the showdown's own scoring) plus ``fl_value`` if it earns Fantasyland."""
    values = []
    for dest in turn_candidates(view):
        boards = [place(view.own_rows, view.pending, dest) if q == view.player else view.rows[q]
                  for q in range(view.num_players)]
        results = [evaluate_board(*b) for b in boards]
        earns = fl_entry_cards(results[view.player], "regular") > 0
        values.append(score_hand(results)[view.player] + fl_value * earns)
    return values


@pytest.mark.parametrize("variant,players,hands", [("pineapple", 2, 1), ("pineapple", 2, 2), ("pineapple", 3, 1),
                                                   ("original", 2, 1)])
def test_last_street_equals_brute_force(variant: str, players: int, hands: int) -> None:
    game, states = last_turn_positions(variant, players, hands, count=6)
    fl_value = EXPERT_FL_VALUE if hands > 1 else 0.0
    for i, state in enumerate(states):
        view = state.view(state.current_player)
        expected = brute_force(view, fl_value)
        expert = OFCExpert(game, seed=i, samples=4)
        dests, values = expert.values(view)
        assert [list(d) for d in dests] == turn_candidates(view)
        np.testing.assert_array_equal(values, expected)   # exact: integers, no sampling left
        plan = expert.plan_regular_turn(view)
        assert expected[[list(d) for d in dests].index(plan)] == max(expected)


def test_the_brute_force_check_sees_a_wrong_completion() -> None:
    # the check must fail for a player that does not take the best completion
    game, states = last_turn_positions("pineapple", 2, 1, count=12)
    gaps = []
    for state in states:
        view = state.view(state.current_player)
        values = brute_force(view, 0.0)
        gaps.append(max(values) - min(values))
    assert max(gaps) > 0, "the positions must offer completions of different worth"


def spy_on_worlds(monkeypatch) -> list[np.ndarray]:
    seen_worlds: list[np.ndarray] = []
    real = expert_module.candidate_values

    def spy(*args, **kwargs):
        seen_worlds.append(np.array(args[5]))
        return real(*args, **kwargs)

    monkeypatch.setattr(expert_module, "candidate_values", spy)
    return seen_worlds


def seen_by(state, player: int) -> set[int]:
    """Every card ``player`` has seen, from the state itself (not from the view)."""
    seen = set(state.discards[player])
    if state.current_player == player:
        seen |= set(state.pending[state.pend_pos:])
    for q in range(state.n):
        if q == player or not state.in_fl[q]:
            seen |= {c for row in state.rows[q] for c in row}
    return seen


@pytest.mark.parametrize("variant,players,hands", [("pineapple", 2, 1), ("pineapple", 3, 1), ("original", 3, 1)])
def test_sampling_never_deals_a_card_the_seat_has_seen(monkeypatch, variant: str, players: int, hands: int) -> None:
    worlds = spy_on_worlds(monkeypatch)
    game = envs.make_game("ofc_v0", variant=variant, num_players=players, num_hands=hands)
    agents = [OFCExpert(game, seed=s, samples=6) for s in range(players)]
    state = game.new_state(np.random.default_rng(3))
    while not state.is_terminal():
        p = state.current_player
        before = len(worlds)
        action = decide(agents[p], game, state, p)
        for w in worlds[before:]:
            seen = seen_by(state, p)
            hidden = set(range(52)) - seen
            for row in w:
                assert not seen & set(row.tolist()), "a sampled world dealt a card the seat has seen"
                assert sorted(row.tolist()) == sorted(hidden), "a world must hold every card the seat cannot see"
        state.apply(action)
    assert worlds, "the expert sampled no world"


def fantasyland_opponent_state(seed: int):
    """A heads-up Pineapple match whose first hand seat 0 plays in Fantasyland (14 cards):
    set up as the showdown of an earlier hand would (``fl_next``), then redealt."""
    game = envs.make_game("ofc_v0", variant="pineapple", num_hands=2)
    state = game.new_state(np.random.default_rng(seed))
    state.fl_next = [14, 0]
    state.trace.dealt.clear()
    state._start_hand()
    return game, state


def test_a_hidden_fantasyland_board_is_sampled_not_read(monkeypatch) -> None:
    worlds = spy_on_worlds(monkeypatch)
    game, state = fantasyland_opponent_state(5)
    agents = [OFCExpert(game, seed=s, samples=4) for s in range(2)]
    decisions = 0
    while not state.is_terminal() and state.hand_index == 0:
        p = state.current_player
        if p == 1:
            view = state.view(1)
            assert view.hidden[0] and view.rows[0] == ((), (), ())
            twin = state.determinize(1, np.random.default_rng(decisions))
            for seed in (1, 2):
                a = OFCExpert(game, seed=seed, samples=4)
                b = OFCExpert(game, seed=seed, samples=4)
                assert decide(a, game, state, 1) == decide(b, game, twin, 1)
            decisions += 1
            before = len(worlds)
            action = decide(agents[1], game, state, 1)
            fl_cards = {c for row in state.rows[0] for c in row} | set(state.discards[0])
            for w in worlds[before:]:
                assert all(fl_cards <= set(row) for row in w.tolist()), "the Fantasyland player's cards are unseen: they must be drawn"
            state.apply(action)
        else:
            state.apply(decide(agents[0], game, state, 0))
    assert decisions >= 4


def test_same_seed_same_play_and_other_seeds_differ() -> None:
    game = envs.make_game("ofc_v0", variant="pineapple")

    def actions(seed: int) -> list[int]:
        result = play_episode(game, [OFCExpert(game, samples=8), OFCHeuristic(game)], seed=11,
                              agent_seeds=[seed, 0])
        return list(result.state.trace.actions)

    assert actions(1) == actions(1)
    view = game.new_state(np.random.default_rng(11)).view(0)
    values = [OFCExpert(game, seed=s, samples=8).values(view)[1] for s in (1, 1, 2)]
    np.testing.assert_array_equal(values[0], values[1])
    assert not np.array_equal(values[0], values[2]), "another seed must sample other worlds"


@pytest.mark.parametrize("options", [{"variant": "pineapple"}, {"variant": "pineapple", "num_hands": 3},
                                     {"variant": "pineapple", "num_players": 3}, {"variant": "original"}])
def test_small_budget_match_against_the_heuristic(options: dict) -> None:
    game = envs.make_game("ofc_v0", **options)
    seats = [make_agent("expert:4", game, seed=0)]
    seats += [make_agent("heuristic", game, seed=s) for s in range(1, game.num_players)]
    result = play_episode(game, seats, seed=2)
    assert result.state.terminal and sum(result.rewards) == 0
    assert all(len(sum(board, ())) == 13 for board in result.state.showdown.boards)


def test_registry_parses_the_budget() -> None:
    game = envs.make_game("ofc_v0")
    assert make_agent("expert", game).samples == expert_module.DEFAULT_SAMPLES
    assert make_agent("expert:16", game).samples == 16
    for bad in ("expert:0", "expert:x", "expert:-3", "expert:100001", "expert:" + "9" * 20):
        with pytest.raises(ConfigError, match="budget"):
            make_agent(bad, game)
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("expert", envs.make_game("tonk_v0"))


def test_the_fantasyland_value_option_reaches_the_planner_and_the_solver() -> None:
    """``fl=VALUE``: the last street's exact values carry VALUE for a board that earns
    Fantasyland (the default's 11 would differ there), and the solver stays at VALUE."""
    game, states = last_turn_positions("pineapple", 2, 2, count=80)  # about 1 in 80 can earn Fantasyland
    views = [state.view(state.current_player) for state in states]
    earning = [v for v in views if brute_force(v, 5.5) != brute_force(v, EXPERT_FL_VALUE)]
    assert earning, "some position must offer a board that earns Fantasyland"
    for i, view in enumerate(earning + views[:3]):
        expert = make_agent("expert:4:fl=5.5", game, seed=i)
        assert (expert.fl_bonus, expert.stay_value, expert.fantasyland.stay_value) == (5.5, 5.5, 5.5)
        np.testing.assert_array_equal(expert.values(view)[1], brute_force(view, 5.5))
    assert make_agent("expert:fl=0", game).fl_bonus == 0.0 and make_agent("expert", game).fl_bonus == EXPERT_FL_VALUE
    # the expert's own measured value, not the heuristic's: a change of either is a decision
    assert (EXPERT_FL_VALUE, FANTASYLAND_VALUE) == (11.0, 17.0)
    assert make_agent("expert", game).fantasyland.stay_value == EXPERT_FL_VALUE
    for bad, match in [("expert:fl=x", "fl='x'"), ("expert:fl=inf", "fl='inf'"), ("expert:fl=-1", "fl_value.*0..1000"),
                       ("expert:8:fl=2:fl=3", "option 'fl=3'"), ("expert:8:depth=2", "option 'depth=2'.*fl=VALUE"),
                       ("expert:fl=3:8", "budget '8'.*right after expert")]:
        with pytest.raises(ConfigError, match=match):
            make_agent(bad, game)


def test_expert_plays_only_legal_actions_in_its_plan() -> None:
    game = envs.make_game("ofc_v0", variant="pineapple")
    view = game.new_state(np.random.default_rng(4)).view(0)
    plan = OFCExpert(game, seed=0, samples=4).plan_regular_turn(view)
    assert len(plan) == 5 and DISCARD not in plan and sorted(plan).count(0) <= 3


def test_all_candidates_are_listed_once() -> None:
    game = envs.make_game("ofc_v0", variant="pineapple")
    state = game.new_state(np.random.default_rng(6))
    dests, _ = OFCExpert(game, seed=0, samples=2).values(state.view(0))
    assert len(dests) == len(set(dests)) == len(list(itertools.product(range(3), repeat=5))) - 11


def test_a_candidates_score_does_not_depend_on_the_others_scored_with_it() -> None:
    # common random numbers: every candidate meets the same worlds, fillings and opponent boards
    game = envs.make_game("ofc_v0", variant="pineapple")
    state = game.new_state(np.random.default_rng(8))
    expert = OFCExpert(game, seed=0, samples=6)
    advance(game, state, [expert, OFCHeuristic(game, seed=1)], lambda s: s.turn == 2)   # seat 0's second turn
    view = state.view(0)
    plans = expert_module.plans_of(view)
    setup = expert_module.turn_setup(view)
    unseen = view.unseen_cards()

    def scores(index) -> np.ndarray:
        expert.reset(seed=5)
        return expert._scores(view, setup, plans.array[index], unseen, 6)

    every = scores(np.arange(len(plans.dests)))
    some = [len(plans.dests) - 1, 0, 3]
    np.testing.assert_array_equal(scores(some), every[some])


def test_the_destination_table_counts_each_cards_row() -> None:
    from parlor.agents.ofc.expert_kernel import DESTINATION_COUNTS, MAX_TURN_CARDS

    rng = np.random.default_rng(0)
    for _ in range(200):
        k = int(rng.integers(0, MAX_TURN_CARDS + 1))
        dests = rng.integers(0, 4, size=k)
        code = sum(int(d) << (2 * i) for i, d in enumerate(dests))
        assert DESTINATION_COUNTS[k, code].tolist() == np.bincount(dests, minlength=4).tolist()


def test_the_kernel_refuses_a_later_turn_larger_than_its_table() -> None:
    from parlor.agents.ofc.expert_kernel import MAX_TURN_CARDS, candidate_values

    too_many = MAX_TURN_CARDS + 1
    with pytest.raises(ValueError, match=f"deals {too_many} cards.*MAX_TURN_CARDS"):
        candidate_values(np.zeros((1, 1)), [0], np.zeros(3), np.zeros(3), [(too_many, 0)], np.zeros((1, 20)),
                         np.zeros((0, 1, 6)), np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 1, 2)),
                         np.zeros(0), np.zeros(0), 0, 0, 1, 0.0, 6.0, 0.5, 0.0, 0)
