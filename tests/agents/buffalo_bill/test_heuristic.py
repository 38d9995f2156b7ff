"""Buffalo Bill baselines: always legal, and better than random in solitaire."""
from __future__ import annotations

import numpy as np
import pytest

from parlor.agents.base import Agent
from parlor.agents.buffalo_bill.heuristic import BuffaloBillHeuristic, BuffaloBillMonteCarlo
from parlor.envs.buffalo_bill.game import make_game
from parlor.training.evaluation import EvalConfig, evaluate


@pytest.mark.parametrize("options", [
    {"num_players": 3, "sheet": "extended"},
    {"num_players": 2, "sheet": "bobtail", "deck": "short32", "chips": 1},
    {"num_players": 4, "deck": "short32", "sheet": ["gang", "puritan", "face cards"]},
])
@pytest.mark.parametrize("cls", [BuffaloBillHeuristic, BuffaloBillMonteCarlo])
def test_agents_play_only_legal_actions(cls, options):
    game = make_game(**options)
    kwargs = {"samples": 8} if cls is BuffaloBillMonteCarlo else {}
    agents = [cls(game, seed=p, **kwargs) for p in range(game.num_players)]
    assert all(isinstance(a, Agent) for a in agents)
    state = game.new_state(np.random.default_rng(3))
    while not state.is_terminal():
        p = state.current_player
        mask = state.legal_mask()
        action = agents[p].act(game.observe(state, p), mask, state.view(p))
        assert mask[action], game.action_name(action)
        state.apply(action)


def test_heuristic_and_monte_carlo_beat_random_in_solitaire():
    config = EvalConfig(env="buffalo_bill_v0", options={"num_players": 1, "reward": "score"},
                        agents=("random", "heuristic", "montecarlo"), games=25)
    rand, heur, mc = (a["mean_reward"] for a in evaluate(config)["agents"])  # the same deals for all three
    assert heur > rand + 50 and mc > rand + 50
