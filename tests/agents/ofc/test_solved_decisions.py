"""Every OFC agent plays its Fantasyland hands with the exact solver (issue 26.1): the
advisor's ``solved_action``, the search agent, a trained policy and the learner's seat
of the training wrapper."""
from __future__ import annotations

import numpy as np
import pytest

from parlor.agents.advisors import Advisor, advisor_for, solved_action
from parlor.agents.ofc.fantasyland import DEFAULT_STAY_VALUE, solve
from parlor.agents.policy import PolicyAgent
from parlor.agents.registry import make_agent
from parlor.agents.search import SearchAgent
from parlor.envs.ofc.scoring import evaluate_board
from parlor.training.learning.wrapper import SingleAgentEnv
from tests.ofc.helpers import hand_script, new_state, run, seq

ACES_ON_TOP = seq("As Ah 2c", "9c 9d 9h 4s 5s", "Kc Qc 8c 6c 3c")   # seat 0 earns Fantasyland
OTHER = seq("3d 4h 5h", "Jc Jd 7h 8h Th", "Ts Js Qd Kd 9s")


def fantasyland_turn(num_hands: int = 3, seed: int = 0):
    """(game, state) at the first decision of seat 0's Fantasyland hand (hand 1)."""
    deck, actions = hand_script({0: ACES_ON_TOP, 1: OTHER}, 2)
    game, state = new_state([deck], num_hands=num_hands)
    state.rng = np.random.default_rng(seed)   # the Fantasyland hand is shuffled from here
    run(state, actions)
    assert state.current_player == 0 and state.view(0).fantasyland == (True, False)
    return game, state


class NoPolicy:
    """A policy network that must not be asked: every decision it sees is solved."""

    def obs_to_tensor(self, observation):
        raise AssertionError("a solved decision reached the policy network")


def play_fantasyland(state, agent_for_seat0) -> tuple[int, ...]:
    """Seat 0 places its Fantasyland hand with ``agent_for_seat0``; returns the cards dealt."""
    dealt = state.view(0).pending
    game = state.game
    while state.current_player == 0:
        view = state.view(0)
        state.apply(agent_for_seat0.act(game.observe(state, 0), state.legal_mask().astype(np.int8), view,
                                        sample_world=lambda rng: state.determinize(0, rng)))
    return dealt


def assert_solved_board(state, dealt, stay_value=DEFAULT_STAY_VALUE) -> None:
    board = solve(dealt, "trips_fh_quads", stay_value)
    assert [sorted(r) for r in state.rows[0]] == [sorted(board.top), sorted(board.middle), sorted(board.bottom)]
    assert not evaluate_board(*state.rows[0]).fouled


def test_ofc_advisor_solves_fantasyland_decisions_only():
    game, state = fantasyland_turn()
    advisor = advisor_for(game)
    assert isinstance(advisor, Advisor)
    view = state.view(0)
    board = solve(view.pending, "trips_fh_quads", DEFAULT_STAY_VALUE)
    assert advisor.solved_action(view) == board.destination(view.pending[0])
    assert solved_action(None, view) is None
    _, regular = new_state([], num_hands=3)
    assert advisor.solved_action(regular.view(0)) is None      # a regular turn is the agent's own
    assert advisor.solved_action(state.view(1)) is None         # not this seat's turn


@pytest.mark.parametrize("spec", ["search", "search:4:random"])
def test_search_agent_plays_the_solved_board(spec):
    game, state = fantasyland_turn()
    agent = make_agent(spec, game, seed=0)
    assert isinstance(agent, SearchAgent) and agent.advisor is not None
    assert_solved_board(state, play_fantasyland(state, agent))
    assert agent.last_values == {}   # nothing was searched


def test_search_agent_without_an_advisor_searches_fantasyland_decisions():
    game, state = fantasyland_turn()
    agent = SearchAgent(game, seed=0, budget=4)
    view = state.view(0)
    agent.act(game.observe(state, 0), state.legal_mask().astype(np.int8), view,
              sample_world=lambda rng: state.determinize(0, rng))
    assert agent.last_values   # it searched (the advisor is what hands the decision to the solver)


def test_policy_agent_plays_the_solved_board_without_asking_its_network():
    game, state = fantasyland_turn()
    agent = PolicyAgent(NoPolicy(), game)  # the game's env id finds its advisor
    assert_solved_board(state, play_fantasyland(state, agent))
    blind = PolicyAgent(NoPolicy())   # no game: no advisor, the network decides
    with pytest.raises(AssertionError, match="reached the policy network"):
        blind.act(game.observe(state, 0), state.legal_mask().astype(np.int8), state.view(0))


def test_training_wrapper_plays_the_learners_fantasyland_hand_for_it():
    deck, script = hand_script({0: ACES_ON_TOP, 1: OTHER}, 2)
    fantasyland_deck = tuple(int(c) for c in np.random.default_rng(3).permutation(52))
    board = solve(fantasyland_deck[:14], "trips_fh_quads", DEFAULT_STAY_VALUE)   # hand 1 of 3: staying counts
    env = SingleAgentEnv("ofc_v0", {"num_hands": 3}, opponents=[("random", 1.0)], seed=0)
    env.reset(options={"learner_seat": 0, "decks": [deck, fantasyland_deck]})
    learner_actions = [a for seat, a in script if seat == 0]
    rewards = []
    for action in learner_actions:   # hand 0: the learner makes AA on top (Fantasyland)
        assert env.state.current_player == 0 and env.state.hand_index == 0
        _, reward, terminated, _, _ = env.step(action)
        rewards.append(reward)
    # hand 1 was the learner's Fantasyland hand, placed by the solver (the opponent played the
    # rest of it): the next decision the learner sees is in hand 2
    state = env.state
    assert not terminated and state.hand_index == 2 and state.current_player == 0
    assert state.tally.fl_hands[0] == 1 and state.tally.foul[0] == 0
    assert state.tally.royalties[0] == evaluate_board(*hand0_rows()).royalty + board.royalty
    assert state.in_fl[0] == board.stays
    done = False
    while not done:   # the rest of the episode: the learner only ever decides regular turns
        assert env.state.current_player == 0 and not env.state.in_fl[0]
        legal = np.flatnonzero(env.action_masks())
        _, reward, terminated, truncated, info = env.step(int(legal[0]))
        rewards.append(reward)
        done = terminated or truncated
    assert info["stats"]["fl_hands"] >= 1 / 3
    assert sum(rewards) == pytest.approx(info["raw_return"])   # the solved hand's points reach the learner


def hand0_rows():
    """Seat 0's board of hand 0 (top, middle, bottom card ids)."""
    return tuple(tuple(c for c, d in ACES_ON_TOP if d == row) for row in range(3))
