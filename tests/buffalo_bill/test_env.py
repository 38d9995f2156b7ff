"""buffalo_bill_v0 through the PettingZoo adapter: stacked decks per round, spaces, rewards."""
from __future__ import annotations

import numpy as np

from parlor.envs import buffalo_bill_v0
from parlor.envs.buffalo_bill.encode import score_action
from parlor.envs.engine.cards import format_cards, parse_cards


def full_deck(top: str) -> str:
    head = parse_cards(top)
    return format_cards(head + tuple(c for c in range(52) if c not in head))


def test_reset_options_decks_deal_one_stacked_deck_per_round():
    env = buffalo_bill_v0.env(num_players=2, sheet=["one pair", "high card"], reward="score")
    d0 = full_deck("5h 7h 9h Qh Kh 4c 4d 4h Td Ts")
    d1 = full_deck("Ac Ad 2c 3d 5s 7c 7d 8h 9s Jd")
    env.reset(seed=1, options={"decks": [d0, d1]})
    state = env.unwrapped.state
    assert format_cards(state.hands[0]) == "5h 7h 9h Qh Kh"
    assert format_cards(state.hands[1]) == "4c 4d 4h Td Ts"
    env.step(score_action(1))  # seat 0: high card 41
    env.step(score_action(0))  # seat 1: one pair 20
    assert env.unwrapped.state.round == 1
    assert format_cards(state.hands[1]) == "Ac Ad 2c 3d 5s"  # round 1: seat 1 acts first
    assert format_cards(state.hands[0]) == "7c 7d 8h 9s Jd"
    returns = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        returns[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        env.step(score_action(1) if agent == "player_1" else score_action(0))  # the lines still open
    assert returns == {"player_0": 41.0 + 14.0, "player_1": 20.0 + 32.0}


def test_same_decks_replay_the_same_game_whatever_the_seed():
    decks = [full_deck(""), full_deck("Ks Kh")]
    runs = []
    for seed in (3, 4):
        env = buffalo_bill_v0.raw_env(num_players=1, sheet=["high card", "one pair"])
        env.reset(seed=seed, options={"decks": decks})
        state = env.unwrapped.state
        env.step(score_action(0))
        runs.append((list(state.hands[0]), state.totals[0]))
    assert runs[0] == runs[1]


def test_observation_space_matches_layout_and_mask_marks_legal_actions():
    env = buffalo_bill_v0.env(num_players=3, sheet="extended")
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    layout = env.unwrapped.game.layout
    assert obs["observation"].shape == (layout.size,) == (18 + 1 + 52 + 260 + 6 + 3 * (52 + 54 + 4),)
    assert obs["action_mask"].shape == (31 + 18,) and obs["action_mask"].all()
    assert env.action_space(env.agent_selection).n == 49
    assert not env.observe("player_1")["action_mask"].any()  # not his turn
    assert np.all((obs["observation"] >= 0) & (obs["observation"] <= 1))
