"""The checks of state text and game records: a serialized state restores and plays on
identically, pending rewards travel with it, its errors name the problem; a recorded episode
survives JSON and re-simulates, an edited one fails at its step, final infos carry the stats."""
from __future__ import annotations

import dataclasses
import json
import math

import numpy as np

from parlor.envs.engine.trace import ReplayError
from parlor.envs.records import Record, positions, replay
from parlor.envs.testing.common import Subject, assert_same_position, bad_action, raises, random_episode


def check_state_text_restores(s: Subject) -> None:
    """A state serialized at random points of seeded random play restores to a state that
    plays on identically (observations, masks, rewards, end)."""
    game = s.make_raw().game
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
            for r in [state, *restored]:
                r.apply(action)
            earned = state.take_rewards()
            for r in restored:
                np.testing.assert_array_equal(r.take_rewards(), earned)
                assert r.current_player == state.current_player
                if k % 10 == 0:  # observing every seat is the slow part
                    assert_same_position(game, r, state)
        for r in restored:
            assert r.rng.bit_generator.state == state.rng.bit_generator.state
            assert_same_position(game, r, state)
            assert r.stats() == state.stats()


def check_pending_rewards_serialize(s: Subject) -> None:
    """Rewards not yet taken are part of the serialized state."""
    game = s.make_raw().game
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


def check_state_text_errors(s: Subject) -> None:
    game = s.make_raw().game
    state = game.new_state(np.random.default_rng(0))
    state.apply(int(np.flatnonzero(state.legal_mask())[0]))
    with raises(ValueError, "determinize", "serialize_state(a determinized state)"):
        game.serialize_state(state.determinize(0, np.random.default_rng(1)))
    data = json.loads(game.serialize_state(state))
    with raises(ValueError, "JSON", "deserialize_state('not json')"):
        game.deserialize_state("not json")
    with raises(ValueError, "other game options; no_such_option", "deserialize_state(an unknown option)"):
        game.deserialize_state(json.dumps(dict(data, options=dict(data["options"], no_such_option=1))))
    illegal = np.flatnonzero(~game.new_state(np.random.default_rng(0)).legal_mask())
    if illegal.size:
        with raises(ReplayError, "step 1: illegal action", "deserialize_state(an illegal first action)"):
            game.deserialize_state(json.dumps(dict(data, actions=[int(illegal[0])])))


def check_record_resimulates(s: Subject) -> None:
    """A recorded episode (random play through the AEC API) survives JSON and re-simulates exactly."""
    env, returns, _ = random_episode(s, seed=11)
    record = env.record(agents=[f"random{p}" for p in range(env.game.num_players)])
    assert record.env == env.metadata["name"] and record.seed == 11
    assert len(record.steps) == len(env.state.trace.actions) and (record.terminal or record.truncated)
    np.testing.assert_allclose(record.rewards, [returns[a] for a in env.possible_agents], rtol=1e-6, atol=1e-12)
    assert record.stats == {k: tuple(v) for k, v in env.state.stats().items()}
    line = record.to_json()
    assert "\n" not in line
    again = Record.from_json(line)
    assert again == record
    assert_same_position(env.game, replay(again, env.game), env.state)
    frames = list(positions(again, env.game))
    assert [p.index for p in frames] == list(range(len(record.steps) + 1))


def check_edited_record_fails(s: Subject) -> str | None:
    """An edited action fails at its step; returns why it could not check (no choice), else None."""
    env, _, _ = random_episode(s, seed=12)
    record = env.record()
    game = env.game
    for position in positions(record, game):  # the first step where another action was legal: change it
        if position.index == len(record.steps):
            return "no step with a choice in this episode"
        step = record.steps[position.index]
        legal = [int(a) for a in np.flatnonzero(position.state.legal_mask()) if a != step.action]
        if legal:
            k, other = position.index, legal[0]
            break
    steps = list(record.steps)
    steps[k] = dataclasses.replace(steps[k], action=other)
    edited = dataclasses.replace(record, steps=tuple(steps))
    with raises(ReplayError, rf"step {k + 1}\b", "replay(a record with an edited action)"):
        replay(Record.from_json(edited.to_json()), game)
    illegal = np.flatnonzero(~game.new_state(np.random.default_rng(0)).legal_mask())
    if illegal.size:  # an action that is not legal there
        first = (dataclasses.replace(record.steps[0], action=int(illegal[0])),)
        with raises(ReplayError, "step 1: illegal action", "replay(a record with an illegal first action)"):
            replay(dataclasses.replace(record, steps=first + record.steps[1:]), game)
    with raises(ReplayError, "total rewards|statistics|terminal", "replay(a record with edited rewards)"):
        replay(dataclasses.replace(record, rewards=tuple(r + 1 for r in record.rewards)), game)
    return None


def check_final_infos(s: Subject) -> None:
    """At the end of an episode every agent's info carries its statistics and episode reward."""
    env, returns, finals = random_episode(s, seed=13)
    stats = env.state.stats()
    assert set(finals) == set(env.possible_agents)
    for p, agent in enumerate(env.possible_agents):
        assert finals[agent]["stats"] == {k: float(v[p]) for k, v in stats.items()}
        assert math.isclose(finals[agent]["episode_reward"], returns[agent], rel_tol=1e-6, abs_tol=1e-12)


def check_penalty_record(s: Subject) -> str | None:
    """An illegal-action penalty ends with infos and an unfinished record that replays;
    returns why it could not check (the episode ended after one step), else None."""
    env = s.make_raw(illegal_action="penalty", illegal_reward=-5.0)
    env.reset(seed=3)
    earned = dict(env.rewards)
    legal = np.flatnonzero(env.action_mask(env.agent_selection))
    env.step(int(legal[-1]))  # not Tonk's drop (action 0), which ends the hand
    agent = env.agent_selection
    earned = {a: earned[a] + env.rewards[a] for a in earned}
    if env.terminations[agent] or env.truncations[agent]:
        return "the episode ended after one step"
    env.step(bad_action(env, agent))
    assert env.infos[agent]["illegal_action"] is True
    assert math.isclose(env.infos[agent]["episode_reward"], earned[agent] - 5.0, rel_tol=1e-6, abs_tol=1e-12)
    assert all("stats" in env.infos[a] for a in env.possible_agents)
    record = env.record()
    assert len(record.steps) == 1 and not (record.terminal or record.truncated)
    replay(record, env.game)
    return None

