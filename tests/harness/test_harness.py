"""The generic harness every environment must pass (DESIGN.md, issue 2).

Parametrized over every registered env and each of its PRESETS: PettingZoo's
api_test and seed_test, random masked playouts with the game's invariants,
no-leak via determinize, clone replay, illegal actions and bad options.
"""
from __future__ import annotations

import copy
import dataclasses
import itertools
import math
import pickle
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from parlor.envs.aec import ADAPTER_OPTIONS
from parlor.envs.engine.game import ConfigError, Game, IllegalActionError, State
from tests.harness.cases import CASES, EnvCase, playouts_per_case
from tests.harness.hidden import hidden

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
ids = [c.id for c in CASES]


def random_action(env, agent, rng) -> int | None:
    if env.terminations[agent] or env.truncations[agent]:
        return None
    legal = np.flatnonzero(env.action_mask(agent))
    assert legal.size > 0, f"{agent} must act but has no legal action"
    return int(legal[rng.integers(legal.size)])


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_pettingzoo_api(case: EnvCase) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(case.make(), num_cycles=300)
    # api_test resets with options={"options": 1}: accepted silently (unknown reset options are errors)
    assert not [str(w.message) for w in caught if "reset option" in str(w.message)]


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_seed_gives_identical_games(case: EnvCase) -> None:
    seed_test(lambda: case.make(), num_cycles=300)


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_game_and_state_declare_every_member_of_the_engine_protocol(case: EnvCase) -> None:
    # agents and training call these members directly (no probing): a game must have them all
    game = case.make_raw().game
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


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_random_playouts_keep_invariants(case: EnvCase) -> None:
    env = case.make_raw()
    rng = np.random.default_rng(1234)
    game = env.game
    space = env.observation_space(env.possible_agents[0])
    for episode in range(playouts_per_case(case)):
        env.reset(seed=episode)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter(max_iter=100_000):
            obs, reward, term, trunc, _ = env.last()
            returns[agent] += reward
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


def other_views(state, p: int) -> tuple:
    """What the other seats hold, as they see it."""
    return tuple(state.view(q) for q in range(state.game.num_players) if q != p)


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_no_leak_determinize_keeps_each_players_view_and_redeals_what_he_cannot_see(case: EnvCase) -> None:
    """Resampling what a player cannot see never changes what he sees (his View, observation
    and legal actions), depends only on what he sees (not on the true hidden cards), and
    really resamples: where other seats hold cards he cannot name, or several cards are
    undealt (``tests/harness/hidden.py``), worlds drawn with different generators differ
    there, so a ``determinize`` that returns the true state fails."""
    env = case.make_raw()
    game = env.game
    rng = np.random.default_rng(99)
    expected = {"hands": 0, "deck": 0}  # positions where a redeal can change them ...
    same = {"hands": [], "deck": []}  # ... and those where DRAWS worlds all agreed
    for episode in range(max(5, playouts_per_case(case) // 10)):
        env.reset(seed=1000 + episode)
        for step, agent in enumerate(env.agent_iter(max_iter=100_000)):
            state = env.state
            if not state.is_terminal() and step % 3 == 0:
                for p in range(game.num_players):
                    world = state.determinize(p, np.random.default_rng(step))
                    world.check_invariants()
                    assert world.view(p) == state.view(p), f"determinize({p}) changed what seat {p} sees"
                    np.testing.assert_array_equal(game.encode(world.view(p)), game.encode(state.view(p)))
                    if state.current_player == p:
                        np.testing.assert_array_equal(world.legal_mask(), state.legal_mask())
                    other = state.determinize(p, np.random.default_rng(10_000 + step))
                    again = other.determinize(p, np.random.default_rng(step))
                    assert other_views(again, p) == other_views(world, p), \
                        "determinize depends on hidden information it should not know"
                    secret = hidden(case.env_name, state, p)
                    signals = {"hands": (secret.hands_can_differ, lambda w, p=p: other_views(w, p)),
                               "deck": (secret.deck_can_differ,
                                        lambda w, p=p: hidden(case.env_name, w, p).undealt)}
                    for kind, (can_differ, signal) in signals.items():
                        if not can_differ:
                            continue
                        expected[kind] += 1
                        first = signal(world)
                        worlds = itertools.chain([other], (state.determinize(p, np.random.default_rng(20_000 + k))
                                                           for k in range(DRAWS - 2)))
                        if all(signal(w) == first for w in worlds):
                            same[kind].append((episode, step, p))
            env.step(random_action(env, agent, rng))
    assert expected["hands"] + expected["deck"] > 0, f"{case.id}: no position with hidden cards was checked"
    for kind in ("hands", "deck"):
        assert len(same[kind]) <= (1 - REDEALT) * expected[kind], (
            f"{case.id}: at {len(same[kind])} of {expected[kind]} positions with hidden cards "
            f"({'other hands' if kind == 'hands' else 'undealt cards'}), {DRAWS} determinized worlds all "
            f"agreed there (episode, step, seat: {same[kind][:5]}): determinize does not resample them"
        )


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_clone_plays_on_identically(case: EnvCase) -> None:
    env = case.make_raw()
    game = env.game
    for episode in range(5):
        env.reset(seed=500 + episode)
        state = env.state
        rng = np.random.default_rng(episode)
        for _ in range(int(rng.integers(0, 12))):
            if state.is_terminal() or state.is_truncated():
                break
            legal = np.flatnonzero(state.legal_mask())
            state.apply(int(legal[rng.integers(legal.size)]))
        copy = state.clone()
        twin_rng = np.random.default_rng(7)
        main_rng = np.random.default_rng(7)
        while not (state.is_terminal() or state.is_truncated()):
            assert copy.current_player == state.current_player
            for p in range(game.num_players):
                np.testing.assert_array_equal(game.encode(copy.view(p)), game.encode(state.view(p)))
            legal = np.flatnonzero(state.legal_mask())
            np.testing.assert_array_equal(np.flatnonzero(copy.legal_mask()), legal)
            state.apply(int(legal[main_rng.integers(legal.size)]))
            copy.apply(int(legal[twin_rng.integers(legal.size)]))
            np.testing.assert_array_equal(copy.take_rewards(), state.take_rewards())
        assert copy.is_terminal() == state.is_terminal()


def play_on(env, actions_rng: np.random.Generator, max_steps: int = 100_000) -> list[tuple]:
    """The rest of the episode under random legal play: what every step shows and pays."""
    trajectory = []
    for agent in env.agent_iter(max_iter=max_steps):
        obs, reward, term, trunc, info = env.last()
        trajectory.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc))
        env.step(random_action(env, agent, actions_rng))
    return trajectory


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_env_pickles_and_deep_copies_and_the_copy_plays_on_identically(case: EnvCase) -> None:
    for episode in range(3):
        env = case.make()
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


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_illegal_action_raises_naming_legal_actions(case: EnvCase) -> None:
    env = case.make()
    env.reset(seed=3)
    agent = env.agent_selection
    mask = env.unwrapped.action_mask(agent)
    illegal = np.flatnonzero(mask == 0)
    bad = int(illegal[0]) if illegal.size else env.action_space(agent).n
    with pytest.raises(IllegalActionError, match="legal actions"):
        env.step(bad)
    assert issubclass(IllegalActionError, ValueError)


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_illegal_action_penalty_option_ends_episode(case: EnvCase) -> None:
    env = case.make(illegal_action="penalty", illegal_reward=-5.0)
    env.reset(seed=3)
    agent = env.agent_selection
    illegal = np.flatnonzero(env.unwrapped.action_mask(agent) == 0)
    bad = int(illegal[0]) if illegal.size else env.action_space(agent).n
    env.step(bad)
    assert all(env.terminations.values())
    assert env.rewards[agent] == -5.0
    assert all(r == 0.0 for a, r in env.rewards.items() if a != agent)


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_unknown_option_names_allowed_fields(case: EnvCase) -> None:
    with pytest.raises(ConfigError, match="allowed options"):
        case.make(no_such_option=1)


BAD_OPTION_VALUES = (None, math.nan, math.inf, -math.inf, "x", "", [1, 2], {"a": 1}, (3,), b"x", -1, 0, 1.5, True,
                     10**12, np.float32(1.0))


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_every_option_refuses_bad_values_with_config_error(case: EnvCase) -> None:
    """Any option set to a value of the wrong type or range: either a ``ConfigError`` (never a
    TypeError or ValueError from deep inside, never a NaN or an infinity accepted) or a game
    that really plays."""
    fields = [f.name for f in dataclasses.fields(case.make_raw().game.config)] + list(ADAPTER_OPTIONS)
    for field in fields:
        for value in BAD_OPTION_VALUES:
            try:
                env = case.raw_env_fn(**{**case.options, field: value})
            except ConfigError:
                continue
            assert not (isinstance(value, float) and not math.isfinite(value)), f"{field}={value!r} accepted"
            env.reset(seed=0)
            rng = np.random.default_rng(0)
            for agent in env.agent_iter(max_iter=20):
                env.step(random_action(env, agent, rng))


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_render_ansi_returns_text(case: EnvCase) -> None:
    env = case.make(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and text.strip()


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_bad_stacked_deck_raises(case: EnvCase) -> None:
    env = case.make()
    with pytest.raises(ValueError):
        env.reset(seed=0, options={"deck": "no such cards"})


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_sampled_deck_replays_the_same_deal_whatever_the_seed(case: EnvCase) -> None:
    """Duplicate-deal evaluation relies on this: a sampled deck parses back to itself and
    fixes the first deal, so two resets with different seeds start identically."""
    first, second = case.make_raw(), case.make_raw()
    game = first.game
    deck = tuple(game.sample_deck(np.random.default_rng(5)))
    assert tuple(game.parse_deck(deck)) == deck
    first.reset(seed=1, options={"decks": [deck]})
    second.reset(seed=2, options={"decks": [deck]})
    assert first.agent_selection == second.agent_selection
    for agent in first.possible_agents:
        np.testing.assert_array_equal(first.observe(agent)["observation"], second.observe(agent)["observation"])
