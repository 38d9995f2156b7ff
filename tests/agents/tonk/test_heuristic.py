"""The rule-based baseline: legal, sensible decisions, and better than random play."""
from __future__ import annotations

import numpy as np
import pytest

from parlor.agents.base import Agent
from parlor.agents.tonk.heuristic import TonkHeuristic
from parlor.envs.tonk.encode import DECLARE_49, DRAW_STOCK, DROP, TAKE_DISCARD
from parlor.envs.tonk.game import make_game
from parlor.envs.tonk_v0 import PRESETS
from parlor.training.evaluation import EvalConfig, evaluate
from tests.tonk.helpers import discard, lay, new

MID = "8h Jc Qd 7s 6s"
HIGH = "Kc Ks Th 9h 4h"


def decide(game, state, agent=None):
    agent = agent or TonkHeuristic(game, seed=0)
    p = state.current_player
    return agent.act(game.observe(state, p), state.legal_mask(), state.view(p))


def test_heuristic_follows_the_agent_protocol():
    game, _ = new([MID, HIGH, "2c 3c 4c 5c 6c"], start="Qh")
    assert isinstance(TonkHeuristic(game), Agent)


def test_heuristic_declares_a_natural():
    game, s = new([MID, "Kd Kh Qc Qs Jd", HIGH], start="2h")
    assert decide(game, s) == DECLARE_49


def test_heuristic_drops_a_very_low_hand_and_keeps_a_high_one():
    game, s = new(["Ac Ad 2c 2d 3c", MID, HIGH], start="Qh")
    assert decide(game, s) == DROP
    game, s = new([HIGH, MID, "Ac Ad 2c 2d 3c"], start="Qh")
    assert decide(game, s) in (DRAW_STOCK, TAKE_DISCARD)


def test_heuristic_takes_a_discard_that_completes_a_spread():
    game, s = new(["5c 5d 9h Kd Qs", MID, "Kc Ks Th 9c 4h"], start="5h")
    assert decide(game, s) == TAKE_DISCARD
    game, s = new(["5c 5d 9h Kd Qs", MID, "Kc Ks Th 9c 4h"], start="Jh")
    assert decide(game, s) == DRAW_STOCK


def test_heuristic_lays_the_biggest_spread_and_discards_its_highest_loose_card():
    game, s = new(["5c 5d 5h Kd 2s", MID, HIGH], start="Qh", stock="Kh")
    s.apply(DRAW_STOCK)
    assert decide(game, s) == lay("5c 5d 5h")
    s.apply(lay("5c 5d 5h"))
    s.apply(decide(game, s))  # nothing left to lay: end laying
    assert decide(game, s) in (discard("Kd"), discard("Kh"))


def test_heuristic_beats_random_agents():
    heuristic, rand = evaluate(EvalConfig(env="tonk_v0", agents=("heuristic", "random"), games=300, seed=3))["agents"]
    assert heuristic["mean_reward"] - heuristic["ci95"] > 0 > rand["mean_reward"]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_heuristic_plays_legally_under_every_preset(preset):
    game = make_game(**PRESETS[preset])
    agents = [TonkHeuristic(game, seed=p) for p in range(game.num_players)]
    for episode in range(4):
        state = game.new_state(np.random.default_rng(episode))
        while not (state.is_terminal() or state.is_truncated()):
            p = state.current_player
            mask = state.legal_mask()
            a = decide(game, state, agents[p])
            assert mask[a]
            state.apply(a)
