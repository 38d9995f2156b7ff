"""The one episode loop: play_until's stop and step hooks, what agents are given,
and play_episode's totals (on the Kuhn test game, whose payoffs are known)."""
from __future__ import annotations

import numpy as np
import pytest

from parlor.agents.base import RandomAgent
from parlor.agents.episodes import decide, play_episode, play_until, seat_chooser
from parlor.envs.engine.game import ConfigError
from tests.agents.kuhn_agents import AlwaysBet
from tests.harness import kuhn

GAME = kuhn.make_game()
J, Q, K = 0, 1, 2


def dealt(p0: int, p1: int):
    return GAME.new_state(np.random.default_rng(0), decks=[(p0, p1, 3 - p0 - p1)])


def test_play_until_plays_to_the_end_and_hands_over_every_reward_once() -> None:
    state = dealt(K, J)
    seen: list[tuple[int, int, list[float]]] = []
    steps = play_until(state, lambda s, p: 1, on_step=lambda s, p, a, earned: seen.append((p, a, earned.tolist())))
    assert steps == 2 and state.is_terminal()
    assert seen == [(0, 1, [0.0, 0.0]), (1, 1, [2.0, -2.0])]  # bet, call: the king wins 2
    assert state.take_rewards().tolist() == [0.0, 0.0]  # nothing left unpaid


def test_stop_is_asked_before_every_decision() -> None:
    state = dealt(K, J)
    asked: list[int] = []

    def stop(s) -> bool:
        asked.append(s.current_player)
        return s.current_player == 1

    assert play_until(state, lambda s, p: 0, stop=stop) == 1
    assert asked == [0, 1] and state.current_player == 1 and state.history == [0]
    assert play_until(state, lambda s, p: 0, stop=stop) == 0  # already there: no move


def test_agents_get_what_the_adapter_gives() -> None:
    state = dealt(Q, K)
    got = {}

    class Spy:
        def act(self, obs, mask, view, sample_world=None):
            got.update(obs=obs, mask=mask, view=view, world=sample_world(np.random.default_rng(1)))
            return 0

    assert decide(Spy(), GAME, state, 0) == 0
    assert got["mask"].dtype == np.int8 and got["mask"].tolist() == [1, 1]
    assert np.array_equal(got["obs"], GAME.observe(state, 0)) and got["view"] == state.view(0)
    assert got["world"].cards[0] == Q and got["world"] is not state  # a world consistent with seat 0's view
    decide(Spy(), GAME, state, 0, mask=np.array([1, 0], dtype=np.int8))
    assert got["mask"].tolist() == [1, 0]  # a narrowed mask is passed on as given


def test_seat_chooser_asks_the_seat_to_act() -> None:
    chooser = seat_chooser(GAME, lambda seat: AlwaysBet() if seat == 1 else RandomAgent(seed=0))
    state = dealt(J, K)
    state.apply(0)
    assert chooser(state, 1) == 1


def test_play_episode_sums_rewards_and_rejects_a_wrong_number_of_agents() -> None:
    result = play_episode(GAME, [AlwaysBet(), AlwaysBet()], seed=0, decks=[(K, J, Q)])
    assert result.rewards == [2.0, -2.0] and result.steps == 2 and not result.truncated
    assert result.state.is_terminal()
    with pytest.raises(ValueError, match="needs 2 agents, got 1"):
        play_episode(GAME, [AlwaysBet()], seed=0)


@pytest.mark.parametrize("seed", [-1, True, 2**64, 1.5])
def test_play_episode_refuses_what_is_not_a_seed(seed) -> None:
    with pytest.raises(ConfigError, match="is not a seed"):
        play_episode(GAME, [AlwaysBet(), AlwaysBet()], seed=seed)
