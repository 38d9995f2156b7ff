"""Random play over every option combination: invariants, observation fast path,
determinization, and chip conservation (only split remainders leave play)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parlor.envs.washizu_poker.game import WASHIZU_MODES, make_game
from tests.tiers import first_share

COMBOS = list(itertools.product(range(2, 7), WASHIZU_MODES, range(3)))


def random_match(game, seed: int, check_every: int = 0):
    rng = np.random.default_rng(seed)
    state = game.new_state(np.random.default_rng(seed + 1))
    total = np.zeros(game.num_players)
    step = 0
    while not state.is_terminal():
        p = state.current_player
        mask = state.legal_mask()
        assert mask.any() and mask.dtype == bool and mask.shape == (game.num_actions,)
        obs = game.observe(state, p)
        np.testing.assert_array_equal(obs, game.encode(state.view(p)))
        assert obs.shape == game.observation_shape and obs.min() >= 0.0 and obs.max() <= 1.0
        if check_every and step % check_every == 0:
            world = state.determinize(p, np.random.default_rng(step))
            world.check_invariants()
            np.testing.assert_array_equal(game.encode(world.view(p)), obs)
            np.testing.assert_array_equal(world.legal_mask(), mask)
            other = state.determinize(p, np.random.default_rng(step + 99)).determinize(p, np.random.default_rng(step))
            for q in range(game.num_players):
                np.testing.assert_array_equal(game.encode(other.view(q)), game.encode(world.view(q)))
        legal = np.flatnonzero(mask)
        state.apply(int(legal[rng.integers(legal.size)]))
        state.check_invariants()
        total += state.take_rewards()
        step += 1
    return state, total


@pytest.mark.parametrize("seeds", first_share(1))  # make test: the first match of each combination
@pytest.mark.parametrize("players,washizu,jokers", COMBOS, ids=[f"{n}p-{w}-j{j}" for n, w, j in COMBOS])
def test_every_option_combination_plays_legal_matches(players: int, washizu: str, jokers: int, seeds: int | None) -> None:
    game = make_game(num_players=players, washizu=washizu, jokers=jokers)
    for seed in range(2 if seeds is None else seeds):
        state, total = random_match(game, seed, check_every=4)
        assert state.current_player is None and not state.legal_mask().any()
        assert total.sum() == -int(state.ledger.removed)


@pytest.mark.parametrize("washizu,cards", [("suit", "c"), ("random13", "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")])
def test_fixed_washizu_cards_play(washizu: str, cards: str) -> None:
    game = make_game(num_players=5, washizu=washizu, washizu_cards=cards)
    state, _ = random_match(game, 3, check_every=3)
    assert state.washizu_ids == game.config.washizu_cards


@settings(max_examples=40, deadline=None)
@given(
    players=st.integers(2, 6),
    washizu=st.sampled_from(WASHIZU_MODES),
    jokers=st.integers(0, 2),
    chips=st.integers(1, 12),
    max_raise=st.integers(1, 5),
    games=st.integers(1, 8),
    seed=st.integers(0, 2**31),
)
def test_chips_are_conserved_except_removed_remainders(players, washizu, jokers, chips, max_raise, games, seed) -> None:
    game = make_game(num_players=players, washizu=washizu, jokers=jokers, starting_chips=chips,
                     max_raise=max_raise, num_games=games)
    state, total = random_match(game, seed)
    removed = int(state.ledger.removed)
    assert sum(state.stacks) + removed == players * chips
    assert total.tolist() == [s - chips for s in state.stacks]
    assert total.sum() == -removed
    stats = state.stats()
    assert stats["final_chips"] == [float(s) for s in state.stacks]
    assert stats["eliminated"] == [float(s == 0) for s in state.stacks]
    assert sum(stats["games_won"]) == pytest.approx(state.game_index + 1)


def test_clone_plays_on_identically_including_reshuffles() -> None:
    game = make_game(num_players=6, washizu="none", jokers=0)
    state = game.new_state(np.random.default_rng(4))
    for _ in range(4):
        state.apply(31)
    copy = state.clone()
    for s in (state, copy):
        s.apply(31)  # this draw empties the stock: the reshuffle uses the state's own rng
    assert state.reshuffle_turn == 4
    assert copy.stock == state.stock and copy.hands == state.hands
