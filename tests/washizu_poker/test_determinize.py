"""``State.determinize`` (envs/washizu_poker/determinize.py): every resampled world keeps what
the seat saw (docs/rules.md §3.9), could have happened card by card (§3.5, reshuffles
included), plays on legally to the end, and really redeals the hidden cards."""
from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from parlor.envs.washizu_poker.determinize import old_stock_draws
from parlor.envs.washizu_poker.draw import NUM_DISCARDS
from parlor.envs.washizu_poker.game import make_game
from parlor.envs.washizu_poker.match import DRAW, OVER
from tests.washizu_poker.helpers import play, stacked

WORLDS = 4  # draws per seat and position


def assert_world_could_have_happened(state) -> None:
    """The card movements behind ``state`` are possible (§3.4, §3.5): a seat's drawn cards are in
    its hand and its discards are not; the pile is the discards of the seats that drew after any
    reshuffle, in turn order; after a reshuffle the stock plus every card drawn from it is
    exactly the discards of the seats that drew before it."""
    n, s = state.game.num_players, state.reshuffle_turn
    drew = [q for q in state.order if state.draw_turn[q] >= 0]
    for q in drew:
        hand = Counter(state.hands[q])
        assert not Counter(state.drawn_cards[q]) - hand, f"seat {q} drew cards it does not hold"
        assert not hand & Counter(state.discarded[q]), f"seat {q} holds a card it discarded"
        assert len(state.drawn_cards[q]) == len(state.discarded[q])
    assert state.pile == [c for q in drew if s < 0 or state.draw_turn[q] >= s for c in state.discarded[q]]
    if s >= 0:
        new_stock = [c for q in drew if state.draw_turn[q] < s for c in state.discarded[q]]
        drawn_from_it = [c for q in range(n) for c in state.drawn_cards[q][old_stock_draws(state, q):]]
        assert sorted(state.stock + drawn_from_it) == sorted(new_stock), "the new stock is not the old discards"


def hidden_cards(state, p: int) -> tuple:
    """What seat ``p`` cannot see: the other hands, the other seats' discards, the stock order."""
    others = [q for q in range(state.game.num_players) if q != p]
    return (tuple(tuple(state.hands[q]) for q in others), tuple(tuple(state.discarded[q]) for q in others),
            tuple(state.stock))


HEAVY_DISCARDS = np.array([a for a in range(NUM_DISCARDS) if bin(a).count("1") >= 4] + [NUM_DISCARDS - 1] * 4)


def draw_heavy_match(game, seed: int):
    """States along a match where seats mostly discard four or five cards (so the stock often
    runs out), then bet at random; yields each live state."""
    rng = np.random.default_rng(seed)
    state = game.new_state(np.random.default_rng(seed + 1))
    while not state.is_terminal():
        yield state
        legal = np.flatnonzero(state.legal_mask())
        if state.phase == DRAW and rng.random() < 0.9:
            legal = HEAVY_DISCARDS
        state.apply(int(legal[rng.integers(legal.size)]))


def check_worlds(state, p: int, seed: int) -> set[tuple]:
    worlds = [state.determinize(p, np.random.default_rng(seed + k)) for k in range(WORLDS)]
    for world in worlds:
        assert world.view(p) == state.view(p)
        np.testing.assert_array_equal(world.game.observe(world, p), world.game.observe(state, p))
        world.check_invariants()
        assert_world_could_have_happened(world)
        assert not world.trace.replayable
    return {hidden_cards(world, p) for world in worlds}


COMBOS = [(6, "suit", 0), (6, "none", 2), (5, "random13", 1), (4, "extra_deck", 1), (3, "suit", 1), (2, "none", 0)]


@pytest.mark.parametrize("players,washizu,jokers", COMBOS, ids=[f"{n}p-{w}-j{j}" for n, w, j in COMBOS])
def test_determinized_worlds_keep_the_view_could_have_happened_and_redeal_hidden_cards(players, washizu, jokers):
    game = make_game(num_players=players, washizu=washizu, jokers=jokers, num_games=3)
    positions = reshuffled = 0
    for seed in range(3):
        for step, state in enumerate(draw_heavy_match(game, seed)):
            if step % 2:
                continue
            assert_world_could_have_happened(state)  # the check holds for the true state
            for p in range(players):
                seen = check_worlds(state, p, 100 * step)
                # the true hidden cards are one world among many: four draws that all gave the
                # same hidden cards (or the true ones) would mean nothing was resampled
                assert len(seen) == WORLDS and hidden_cards(state, p) not in seen
                if any(not state.is_w[c] for q in range(players) if q != p for c in state.hands[q]):
                    assert len({hands for hands, _, _ in seen}) > 1, "the other hands were not redealt"
            positions += 1
            reshuffled += state.reshuffle_turn >= 0
    assert positions > 10
    if players == 6:
        assert reshuffled > 0, "no position after a reshuffle was checked"


def test_determinized_worlds_play_on_legally_to_the_end_of_the_match() -> None:
    game = make_game(num_players=6, washizu="suit", jokers=1, num_games=2)
    rng = np.random.default_rng(0)
    for step, state in enumerate(draw_heavy_match(game, 5)):
        for p in range(game.num_players):
            world = state.determinize(p, np.random.default_rng(step))
            while not world.is_terminal():
                legal = np.flatnonzero(world.legal_mask())
                world.apply(int(legal[rng.integers(legal.size)]))
                world.check_invariants()
                if world.phase != OVER:
                    assert_world_could_have_happened(world)


def test_a_world_depends_only_on_what_the_seat_saw() -> None:
    # determinizing a determinized world again with the same generator gives the same world
    game = make_game(num_players=6, washizu="random13", jokers=2, num_games=2)
    for step, state in enumerate(draw_heavy_match(game, 2)):
        for p in range(game.num_players):
            world = state.determinize(p, np.random.default_rng(step))
            again = state.determinize(p, np.random.default_rng(step + 1)).determinize(p, np.random.default_rng(step))
            assert hidden_cards(again, p) == hidden_cards(world, p)
            assert again.drawn_cards == world.drawn_cards and again.pile == world.pile
            for q in range(game.num_players):
                assert again.view(q) == world.view(q)


def test_after_a_reshuffle_a_seat_that_stood_pat_holds_none_of_the_reshuffled_discards() -> None:
    # 6 players: seats 0-3 discard five cards each, seat 4's draw empties the stock and is made
    # from the reshuffled discards of seats 0-3; seat 5 stands pat. Seat 0's discards went into
    # the new stock: only seat 4 can hold them (at most the five it drew from the new stock).
    game = make_game(num_players=6, washizu="none", jokers=0)
    state = game.new_state(np.random.default_rng(3), decks=[stacked(game)])
    play(state, 31, 31, 31, 31, 31, 0)
    assert state.reshuffle_turn == 4 and state.reshuffle_taken == 2
    lost = set(state.discarded[0])
    drawn5 = set(state.drawn_cards[4][2:])  # what seat 4 drew from the new stock
    held = Counter()
    for seed in range(40):
        world = state.determinize(0, np.random.default_rng(seed))
        assert_world_could_have_happened(world)
        for q in range(1, 6):
            mine = lost & set(world.hands[q])
            assert q == 4 or not mine, f"seat {q} holds seat 0's reshuffled discards {mine}"
            held[q] += len(mine)
        assert not lost & set(world.pile)
        assert len(lost & set(world.hands[4])) <= 3  # its 2 first draws came from the old stock
        # seat 4 sees its own draws: in its worlds they are discards of seats 0-3
        world4 = state.determinize(4, np.random.default_rng(seed))
        assert drawn5 <= {c for q in range(4) for c in world4.discarded[q]}
    assert held[4] > 0  # and seat 4 sometimes does hold some


@pytest.mark.parametrize("p", range(6))
def test_washizu_cards_stay_where_everyone_saw_them(p: int) -> None:
    game = make_game(num_players=6, washizu="suit", washizu_cards="h", jokers=1)
    for step, state in enumerate(itertools.islice(draw_heavy_match(game, 9), 40)):
        world = state.determinize(p, np.random.default_rng(step))
        is_w = state.is_w
        for q in range(6):
            assert [c for c in world.hands[q] if is_w[c]] == [c for c in state.hands[q] if is_w[c]]
            assert [is_w[c] and c for c in world.discarded[q]] == [is_w[c] and c for c in state.discarded[q]]
            assert len(world.hands[q]) == len(state.hands[q])
        assert sorted(c for c in world.stock if is_w[c]) == sorted(c for c in state.stock if is_w[c])


def test_the_match_over_nothing_is_resampled() -> None:
    game = make_game(num_players=3, num_games=1)
    state = game.new_state(np.random.default_rng(0))
    while not state.is_terminal():
        state.apply(int(np.flatnonzero(state.legal_mask())[0]))
    world = state.determinize(0, np.random.default_rng(1))
    assert world.hands == state.hands and world.view(0) == state.view(0) and not world.trace.replayable
