"""The generic harness every environment must pass (DESIGN.md, issue 2).

Parametrized over every registered env and each of its PRESETS: PettingZoo's
api_test and seed_test, random masked playouts with the game's invariants,
no-leak via determinize, clone replay, illegal actions and bad options.
"""
from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from parlor.envs.engine.game import ConfigError, Game, IllegalActionError, State
from tests.harness.cases import CASES, EnvCase, playouts_per_case

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
    api_test(case.make(), num_cycles=300)


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
    assert set(game.portable_options) <= {f.name for f in fields(game.config)}
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


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_no_leak_determinize_keeps_each_players_observation(case: EnvCase) -> None:
    """Resampling what a player cannot see never changes what he sees, and the
    resampled world depends only on what he sees (not on the true hidden cards)."""
    env = case.make_raw()
    game = env.game
    rng = np.random.default_rng(99)
    for episode in range(max(5, playouts_per_case(case) // 10)):
        env.reset(seed=1000 + episode)
        for step, agent in enumerate(env.agent_iter(max_iter=100_000)):
            state = env.state
            if not state.is_terminal() and step % 3 == 0:
                for p in range(game.num_players):
                    world = state.determinize(p, np.random.default_rng(step))
                    world.check_invariants()
                    np.testing.assert_array_equal(game.encode(world.view(p)), game.encode(state.view(p)))
                    if state.current_player == p:
                        np.testing.assert_array_equal(world.legal_mask(), state.legal_mask())
                    other = state.determinize(p, np.random.default_rng(10_000 + step))
                    again = other.determinize(p, np.random.default_rng(step))
                    for q in range(game.num_players):
                        np.testing.assert_array_equal(
                            game.encode(again.view(q)), game.encode(world.view(q)),
                            err_msg="determinize depends on hidden information it should not know",
                        )
            env.step(random_action(env, agent, rng))


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
