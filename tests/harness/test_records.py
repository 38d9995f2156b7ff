"""States as text, game records and the final infos, for every env and preset (issue 24).

Per case: a state serialized at random points of seeded random play restores to a state
that plays on identically (observations, masks, rewards, end); a recorded episode (random
play through the AEC API) survives JSON and re-simulates exactly; an edited action fails
at its step; at the end of an episode every agent's info carries its statistics and reward.
"""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from parlor.envs.engine.trace import ReplayError
from parlor.envs.records import Record, Step, positions, replay
from tests.harness.cases import CASES, EnvCase

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
ids = [c.id for c in CASES]


def random_episode(case: EnvCase, seed: int):
    """A raw env after a full episode of seeded random play, and each agent's summed reward."""
    env = case.make_raw()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    finals = {}
    for agent in env.agent_iter(max_iter=100_000):
        _, reward, term, trunc, info = env.last()
        returns[agent] += reward
        if term or trunc:
            finals[agent] = info
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.action_mask(agent)))))
    return env, returns, finals


def assert_same_position(game, a, b) -> None:
    assert a.current_player == b.current_player
    assert (a.is_terminal(), a.is_truncated()) == (b.is_terminal(), b.is_truncated())
    for p in range(game.num_players):
        np.testing.assert_array_equal(game.observe(a, p), game.observe(b, p))
    np.testing.assert_array_equal(a.legal_mask(), b.legal_mask())


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_a_serialized_state_restores_and_plays_on_identically(case: EnvCase) -> None:
    game = case.make_raw().game
    for episode in range(3):
        actions = game.new_state(np.random.default_rng(100 + episode))
        rng = np.random.default_rng(episode)
        played = []
        while not (actions.is_terminal() or actions.is_truncated()):
            legal = np.flatnonzero(actions.legal_mask())
            played.append(int(legal[rng.integers(legal.size)]))
            actions.apply(played[-1])
        # serialize at random points of that play (each restore replays the history: a few)
        points = set(rng.choice(len(played), size=min(4, len(played)), replace=False).tolist())
        state = game.new_state(np.random.default_rng(100 + episode))
        state.take_rewards()
        restored = []
        for k, action in enumerate(played):
            if k in points:
                text = game.serialize_state(state)
                assert json.loads(text)["format"] == "parlor-state"
                restored.append(game.deserialize_state(text))
                assert_same_position(game, restored[-1], state)
            for s in [state, *restored]:
                s.apply(action)
            earned = state.take_rewards()
            for s in restored:
                np.testing.assert_array_equal(s.take_rewards(), earned)
                assert s.current_player == state.current_player
                if k % 10 == 0:  # observing every seat is the slow part
                    assert_same_position(game, s, state)
        for s in restored:
            assert s.rng.bit_generator.state == state.rng.bit_generator.state
            assert_same_position(game, s, state)
            assert s.stats() == state.stats()


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_rewards_not_yet_taken_are_part_of_the_serialized_state(case: EnvCase) -> None:
    game = case.make_raw().game
    state = game.new_state(np.random.default_rng(3))
    rng = np.random.default_rng(3)
    pending = np.zeros(game.num_players)
    while not (state.is_terminal() or state.is_truncated()):
        legal = np.flatnonzero(state.legal_mask())
        state.apply(int(legal[rng.integers(legal.size)]))
        earned = state.clone().take_rewards()  # peek; nobody takes them: they add up
        if np.any(earned != pending):
            pending = np.array(earned)
            restored = game.deserialize_state(game.serialize_state(state))
            np.testing.assert_array_equal(restored.clone().take_rewards(), pending)
    np.testing.assert_array_equal(state.take_rewards(), pending)


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_state_text_errors_name_the_problem(case: EnvCase) -> None:
    game = case.make_raw().game
    state = game.new_state(np.random.default_rng(0))
    legal = np.flatnonzero(state.legal_mask())
    state.apply(int(legal[0]))
    with pytest.raises(ValueError, match="determinize"):
        game.serialize_state(state.determinize(0, np.random.default_rng(1)))
    data = json.loads(game.serialize_state(state))
    with pytest.raises(ValueError, match="JSON"):
        game.deserialize_state("not json")
    with pytest.raises(ValueError, match="other game options; no_such_option"):
        game.deserialize_state(json.dumps(dict(data, options=dict(data["options"], no_such_option=1))))
    illegal = np.flatnonzero(~game.new_state(np.random.default_rng(0)).legal_mask())
    if illegal.size:
        with pytest.raises(ReplayError, match="step 1: illegal action"):
            game.deserialize_state(json.dumps(dict(data, actions=[int(illegal[0])])))


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_a_recorded_episode_survives_json_and_resimulates_exactly(case: EnvCase) -> None:
    env, returns, _ = random_episode(case, seed=11)
    record = env.record(agents=[f"random{p}" for p in range(env.game.num_players)])
    assert record.env == env.metadata["name"] and record.seed == 11
    assert len(record.steps) == len(env.state.trace.actions) and (record.terminal or record.truncated)
    assert list(record.rewards) == pytest.approx([returns[a] for a in env.possible_agents])
    assert record.stats == {k: tuple(v) for k, v in env.state.stats().items()}
    line = record.to_json()
    assert "\n" not in line
    again = Record.from_json(line)
    assert again == record
    final = replay(again, env.game)
    assert_same_position(env.game, final, env.state)
    frames = list(positions(again, env.game))
    assert [p.index for p in frames] == list(range(len(record.steps) + 1))


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_an_edited_action_fails_at_its_step(case: EnvCase) -> None:
    env, _, _ = random_episode(case, seed=12)
    record = env.record()
    game = env.game
    # the first step where another action was legal: change it to that one
    for position in positions(record, game):
        if position.index == len(record.steps):
            pytest.skip("no step with a choice in this episode")
        step = record.steps[position.index]
        legal = [int(a) for a in np.flatnonzero(position.state.legal_mask()) if a != step.action]
        if legal:
            k, other = position.index, legal[0]
            break
    steps = list(record.steps)
    steps[k] = dataclasses.replace(steps[k], action=other)
    edited = dataclasses.replace(record, steps=tuple(steps))
    with pytest.raises(ReplayError, match=rf"step {k + 1}\b"):
        replay(Record.from_json(edited.to_json()), game)
    illegal = np.flatnonzero(~game.new_state(np.random.default_rng(0)).legal_mask())
    if illegal.size:  # an action that is not legal there
        first = (dataclasses.replace(record.steps[0], action=int(illegal[0])),)
        with pytest.raises(ReplayError, match="step 1: illegal action"):
            replay(dataclasses.replace(record, steps=first + record.steps[1:]), game)
    with pytest.raises(ReplayError, match="total rewards|statistics|terminal"):
        replay(dataclasses.replace(record, rewards=tuple(r + 1 for r in record.rewards)), game)


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_final_infos_carry_each_seats_statistics_and_episode_reward(case: EnvCase) -> None:
    env, returns, finals = random_episode(case, seed=13)
    stats = env.state.stats()
    assert set(finals) == set(env.possible_agents)
    for p, agent in enumerate(env.possible_agents):
        assert finals[agent]["stats"] == {k: float(v[p]) for k, v in stats.items()}
        assert finals[agent]["episode_reward"] == pytest.approx(returns[agent])


def test_a_record_names_its_steps_and_checks_the_names() -> None:
    case = next(c for c in CASES if c.id == "ofc_v0[default]")
    env, _, _ = random_episode(case, seed=1)
    record = env.record()
    assert record.steps[0] == Step(0, record.steps[0].action, record.steps[0].name)
    assert record.steps[0].name.startswith("place ") and "next card" not in record.steps[0].name
    renamed = (dataclasses.replace(record.steps[0], name="place A♠ on top"),) + record.steps[1:]
    with pytest.raises(ReplayError, match="step 1: the record names the move 'place A♠ on top'"):
        replay(dataclasses.replace(record, steps=renamed))


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_an_illegal_action_penalty_ends_with_infos_and_an_unfinished_record(case: EnvCase) -> None:
    env = case.make_raw(illegal_action="penalty", illegal_reward=-5.0)
    env.reset(seed=3)
    earned = dict(env.rewards)
    legal = np.flatnonzero(env.action_mask(env.agent_selection))
    env.step(int(legal[-1]))  # not Tonk's drop (action 0), which ends the hand
    agent = env.agent_selection
    earned = {a: earned[a] + env.rewards[a] for a in earned}
    if env.terminations[agent] or env.truncations[agent]:
        pytest.skip("the episode ended after one step")
    env.step(int(np.flatnonzero(env.action_mask(agent) == 0)[0]) if not env.action_mask(agent).all()
             else env.game.num_actions)
    assert env.infos[agent]["illegal_action"] is True
    assert env.infos[agent]["episode_reward"] == pytest.approx(earned[agent] - 5.0)
    assert all("stats" in env.infos[a] for a in env.possible_agents)
    record = env.record()
    assert len(record.steps) == 1 and not (record.terminal or record.truncated)
    replay(record, env.game)
