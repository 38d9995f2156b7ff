"""The checks of the adapter and the Game/State protocol: PettingZoo's api and seed tests,
random playouts under the game's invariants, no leak through ``determinize``, clone and
pickling, illegal actions, option validation, text render, stacked decks."""
from __future__ import annotations

import copy
import dataclasses
import itertools
import math
import pickle
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from pettingzoo.test import api_test, seed_test

from parlor.envs.aec import ADAPTER_OPTIONS
from parlor.envs.engine.game import ConfigError, Game, IllegalActionError, State
from parlor.envs.testing.common import Hidden, Subject, bad_action, raises, random_action


def check_pettingzoo_api(s: Subject) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(s.make(), num_cycles=300)
    # api_test resets with options={"options": 1}: accepted silently (unknown reset options are errors)
    assert not [str(w.message) for w in caught if "reset option" in str(w.message)]


def check_seed(s: Subject) -> None:
    seed_test(lambda: s.make(), num_cycles=300)


def check_protocol(s: Subject) -> None:
    """Game and State declare every member of the engine protocol (callers never probe)."""
    game = s.make_raw().game
    state = game.new_state(np.random.default_rng(0))
    assert isinstance(game, Game) and isinstance(state, State)
    assert game.observation_version is None or isinstance(game.observation_version, int)
    assert game.max_deals is None or (isinstance(game.max_deals, int) and game.max_deals >= 1)
    stats = state.stats()
    assert isinstance(stats, dict)
    assert all(len(values) == game.num_players for values in stats.values())
    assert set(game.portable_options) <= {f.name for f in dataclasses.fields(game.config)}
    for name, (numerator, denominator) in game.stat_ratios.items():  # rates of reported statistics
        assert name not in stats and numerator in stats and denominator in stats, name


def check_random_playouts(s: Subject) -> None:
    """Random masked playouts: observations inside their space, ``observe`` equal to
    ``encode(view)``, the game's invariants after every step, every agent removed at the end."""
    env = s.make_raw()
    rng = np.random.default_rng(1234)
    game = env.game
    space = env.observation_space(env.possible_agents[0])
    for episode in range(s.playouts):
        env.reset(seed=episode)
        for agent in env.agent_iter(max_iter=100_000):
            obs, reward, term, trunc, _ = env.last()
            assert space.contains(obs), f"observation of {agent} outside its space"
            state = env.state
            if not (term or trunc):
                assert state.current_player == env.agent_name_mapping[agent]
                player = state.current_player
                np.testing.assert_array_equal(game.observe(state, player), game.encode(state.view(player)))
            env.step(random_action(env, agent, rng))
            env.state.check_invariants()
        assert not env.agents, "episode must end with every agent removed"


DRAWS = 8  # worlds drawn per seat and position, at most, until the hidden cards differ
REDEALT = 0.98  # share of positions with hidden cards where the drawn worlds must differ


def other_views(state: State, p: int, num_players: int) -> tuple:
    """What the other seats hold, as they see it."""
    return tuple(state.view(q) for q in range(num_players) if q != p)


def check_no_leak(s: Subject) -> None:
    """Resampling what a player cannot see never changes what he sees (his View, observation
    and legal actions), depends only on what he sees (not on the true hidden cards), and,
    given ``s.hidden``, really resamples: where other seats hold cards he cannot name, or
    several cards are undealt, worlds drawn with different generators differ there, so a
    ``determinize`` that returns the true state fails."""
    env = s.make_raw()
    game = env.game
    n = game.num_players
    rng = np.random.default_rng(99)
    expected = {"hands": 0, "deck": 0}  # positions where a redeal can change them ...
    same: dict[str, list] = {"hands": [], "deck": []}  # ... and those where DRAWS worlds all agreed
    for episode in range(s.episodes_or(max(5, s.playouts // 10))):
        env.reset(seed=1000 + episode)
        for step, agent in enumerate(env.agent_iter(max_iter=100_000)):
            state = env.state
            if not state.is_terminal() and step % 3 == 0:
                for p in range(n):
                    world = state.determinize(p, np.random.default_rng(step))
                    world.check_invariants()
                    assert world.view(p) == state.view(p), f"determinize({p}) changed what seat {p} sees"
                    np.testing.assert_array_equal(game.encode(world.view(p)), game.encode(state.view(p)))
                    if state.current_player == p:
                        np.testing.assert_array_equal(world.legal_mask(), state.legal_mask())
                    other = state.determinize(p, np.random.default_rng(10_000 + step))
                    again = other.determinize(p, np.random.default_rng(step))
                    assert other_views(again, p, n) == other_views(world, p, n), \
                        "determinize depends on hidden information it should not know"
                    if s.hidden is not None:
                        _count_redeals(s.hidden, state, p, step, episode, world, other, expected, same, num_players=n)
            env.step(random_action(env, agent, rng))
    if s.hidden is None:
        return
    assert expected["hands"] + expected["deck"] > 0, f"{s.name}: no position with hidden cards was checked"
    for kind in ("hands", "deck"):
        assert len(same[kind]) <= (1 - REDEALT) * expected[kind], (
            f"{s.name}: at {len(same[kind])} of {expected[kind]} positions with hidden cards "
            f"({'other hands' if kind == 'hands' else 'undealt cards'}), {DRAWS} determinized worlds all "
            f"agreed there (episode, step, seat: {same[kind][:5]}): determinize does not resample them"
        )


def _count_redeals(hidden: Callable[[Any, int], Hidden], state: State, p: int, step: int, episode: int,
                   world: State, other: State, expected: dict[str, int], same: dict[str, list], *,
                   num_players: int) -> None:
    secret = hidden(state, p)
    signals = {"hands": (secret.hands_can_differ, lambda w: other_views(w, p, num_players)),
               "deck": (secret.deck_can_differ, lambda w: hidden(w, p).undealt)}
    for kind, (can_differ, signal) in signals.items():
        if not can_differ:
            continue
        expected[kind] += 1
        first = signal(world)
        worlds = itertools.chain([other], (state.determinize(p, np.random.default_rng(20_000 + k))
                                           for k in range(DRAWS - 2)))
        if all(signal(w) == first for w in worlds):
            same[kind].append((episode, step, p))


def check_clone(s: Subject) -> None:
    """A clone plays on identically (same views, masks, rewards, end)."""
    env = s.make_raw()
    game = env.game
    for episode in range(s.episodes_or(5)):
        env.reset(seed=500 + episode)
        state = env.state
        rng = np.random.default_rng(episode)
        for _ in range(int(rng.integers(0, 12))):
            if state.is_terminal() or state.is_truncated():
                break
            legal = np.flatnonzero(state.legal_mask())
            state.apply(int(legal[rng.integers(legal.size)]))
        twin = state.clone()
        twin_rng = np.random.default_rng(7)
        main_rng = np.random.default_rng(7)
        while not (state.is_terminal() or state.is_truncated()):
            assert twin.current_player == state.current_player
            for p in range(game.num_players):
                np.testing.assert_array_equal(game.encode(twin.view(p)), game.encode(state.view(p)))
            legal = np.flatnonzero(state.legal_mask())
            np.testing.assert_array_equal(np.flatnonzero(twin.legal_mask()), legal)
            state.apply(int(legal[main_rng.integers(legal.size)]))
            twin.apply(int(legal[twin_rng.integers(legal.size)]))
            np.testing.assert_array_equal(twin.take_rewards(), state.take_rewards())
        assert twin.is_terminal() == state.is_terminal()


def play_on(env: Any, actions_rng: np.random.Generator, max_steps: int = 100_000) -> list[tuple]:
    """The rest of the episode under random legal play: what every step shows and pays."""
    trajectory = []
    for agent in env.agent_iter(max_iter=max_steps):
        obs, reward, term, trunc, info = env.last()
        trajectory.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc))
        env.step(random_action(env, agent, actions_rng))
    return trajectory


def check_pickle(s: Subject) -> None:
    """The env pickles and deep-copies mid-episode, and the copy plays on identically."""
    for episode in range(3):
        env = s.make()
        env.reset(seed=700 + episode)
        rng = np.random.default_rng(episode)
        for _ in range(int(rng.integers(0, 15))):  # a few moves, the episode still on
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                break
            env.step(random_action(env, agent, rng))
        copies = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
        original = play_on(env, np.random.default_rng(9))  # played first: a copy sharing state would differ
        assert original
        for twin in copies:
            assert play_on(twin, np.random.default_rng(9)) == original


def check_illegal_action_raises(s: Subject) -> None:
    env = s.make()
    env.reset(seed=3)
    with raises(IllegalActionError, "legal actions", "step(an illegal action)"):
        env.step(bad_action(env, env.agent_selection))


def check_illegal_action_penalty(s: Subject) -> None:
    env = s.make(illegal_action="penalty", illegal_reward=-5.0)
    env.reset(seed=3)
    agent = env.agent_selection
    env.step(bad_action(env, agent))
    assert all(env.terminations.values())
    assert env.rewards[agent] == -5.0
    assert all(r == 0.0 for a, r in env.rewards.items() if a != agent)


def check_unknown_option(s: Subject) -> None:
    with raises(ConfigError, "allowed options", "an unknown option"):
        s.make(no_such_option=1)


BAD_OPTION_VALUES = (None, math.nan, math.inf, -math.inf, "x", "", [1, 2], {"a": 1}, (3,), b"x", -1, 0, 1.5, True,
                     10**12, np.float32(1.0))


def check_bad_option_values(s: Subject) -> None:
    """Any option set to a value of the wrong type or range: either a ``ConfigError`` (never a
    TypeError or ValueError from deep inside, never a NaN or an infinity accepted) or a game
    that really plays."""
    fields = [f.name for f in dataclasses.fields(s.make_raw().game.config)] + list(ADAPTER_OPTIONS)
    for name in fields:
        for value in BAD_OPTION_VALUES:
            try:
                env = s.make_raw(**{name: value})
            except ConfigError:
                continue
            assert not (isinstance(value, float) and not math.isfinite(value)), f"{name}={value!r} accepted"
            env.reset(seed=0)
            rng = np.random.default_rng(0)
            for agent in env.agent_iter(max_iter=20):
                env.step(random_action(env, agent, rng))


def check_render_ansi(s: Subject) -> None:
    env = s.make(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and text.strip(), "render() in mode 'ansi' gave no text"


def check_bad_stacked_deck(s: Subject) -> None:
    with raises(ValueError, "", "reset(options={'deck': 'no such cards'})"):
        s.make().reset(seed=0, options={"deck": "no such cards"})


def check_sampled_deck(s: Subject) -> None:
    """Duplicate-deal evaluation relies on this: a sampled deck parses back to itself and
    fixes the first deal, so two resets with different seeds start identically."""
    first, second = s.make_raw(), s.make_raw()
    game = first.game
    deck = tuple(game.sample_deck(np.random.default_rng(5)))
    assert tuple(game.parse_deck(deck)) == deck
    first.reset(seed=1, options={"decks": [deck]})
    second.reset(seed=2, options={"decks": [deck]})
    assert first.agent_selection == second.agent_selection
    for agent in first.possible_agents:
        np.testing.assert_array_equal(first.observe(agent)["observation"], second.observe(agent)["observation"])

