"""The rank-class foul counts (agents.ofc.rank_classes) and the batched placements of a draw
(agents.ofc.draw_layout) give the card-level counts of agents.ofc.two_slots bit for bit, on
random boards rich in flush draws (where the suits matter and the card-level count serves)."""
from __future__ import annotations

import numpy as np
import pytest

from parlor.agents.ofc import rank_classes
from parlor.agents.ofc.draw_layout import draw_layout
from parlor.agents.ofc.endgame import foul_after_two, next_turn_draws
from parlor.agents.ofc.rank_classes import (
    RANK_VALUES,
    SUITED,
    GridPool,
    class_risks,
    dense_ranks,
    layout_rank_risks,
    rank_counts,
    rank_risks,
    rank_table,
    suits_matter,
)
from parlor.agents.ofc.two_slots import layout_risks, row_table
from parlor.envs.engine.cards import JOKER_BASE
from parlor.envs.ofc_outlook.rollouts import ROW_SIZES, place, room_of
from tests.agents.ofc.foul_oracle import card_graph_risks, rank_graph_risks


def suited_board(rng: np.random.Generator, free: int) -> tuple[list[list[int]], list[int]]:
    """A random board with ``free`` free slots whose 5-card rows are often of one suit (flush
    draws), and the rest of the deck."""
    deck = [int(c) for c in rng.permutation(52)]
    empty = set(int(x) for x in rng.choice(13, free, replace=False))
    rows: list[list[int]] = [[], [], []]
    for pos in range(13):
        r = 0 if pos < 3 else 1 if pos < 8 else 2
        if pos in empty:
            continue
        suit = int(rng.integers(4)) if rng.random() < 0.5 else None
        pick = next((c for c in deck if c % 4 == suit), deck[0]) if suit is not None and r and rng.random() < 0.8 \
            else deck[0]
        if r and rows[r] and rng.random() < 0.6:   # follow the row's suit: a flush draw
            pick = next((c for c in deck if c % 4 == rows[r][0] % 4), pick)
        deck.remove(pick)
        rows[r].append(pick)
    return rows, deck


def card_level(rows, unseen: np.ndarray) -> float:
    """foul_after_two as agents.ofc.two_slots counts it, over every unseen card (the compiled
    count), held to the oracle's array count bit for bit."""
    tables = [row_table(tuple(rows[r]), r, unseen, {}) for r in range(3)]
    got = layout_risks(tuple(room_of(rows)), [tables], len(unseen))[0]
    assert got == card_graph_risks(tuple(room_of(rows)), [tables], len(unseen))[0]
    return got


def test_rank_tables_are_the_card_tables_of_any_card_of_the_rank() -> None:
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(300):
        rows, deck = suited_board(rng, 2)
        unseen = np.array(sorted(deck), dtype=np.int64)
        for r in range(3):
            table = rank_table(r, tuple(sorted(rows[r])))
            if suits_matter(r, rows[r]):
                assert table is None
                continue
            cards = row_table(tuple(rows[r]), r, unseen, {})
            free = ROW_SIZES[r] - len(rows[r])
            ranks = unseen // 4
            if free == 0:
                assert table == cards
            elif free == 1:
                assert np.array_equal(table[ranks], cards)
            else:
                off = ~np.eye(len(unseen), dtype=bool)
                assert np.array_equal(table[ranks[:, None], ranks[None, :]][off], cards[off])
            checked += 1
    assert checked > 500


def test_two_slot_counts_over_ranks_equal_the_card_counts_bit_for_bit() -> None:
    rng = np.random.default_rng(2)
    ranked = 0
    for _ in range(400):
        rows, deck = suited_board(rng, 2)
        n = int(rng.integers(3, len(deck) + 1))
        unseen = np.array(sorted(rng.choice(deck, n, replace=False).tolist()), dtype=np.int64)
        tables = [rank_table(r, tuple(sorted(rows[r]))) for r in range(3)]
        expected = card_level(rows, unseen)
        assert foul_after_two(rows, unseen) == expected
        if all(t is not None for t in tables):
            got = class_risks(tuple(room_of(rows)), [tables], [rank_counts(unseen)], n)[0]
            assert got == expected
            ranked += 0 < expected < 1
    assert ranked > 40   # many boards with a nontrivial probability took the rank path


def test_a_draws_placements_in_one_batch_equal_each_board_judged_alone() -> None:
    rng = np.random.default_rng(3)
    suited = 0
    for t in range(40):
        rows, deck = suited_board(rng, 4)
        unseen = np.array(sorted(deck[:int(rng.integers(12, 36))]), dtype=np.int64)
        draws = next_turn_draws(len(unseen), t, samples=4)
        layout = draw_layout(tuple(room_of(rows)))
        cards = [unseen[d].tolist() for d in draws]
        rests = [np.delete(unseen, d) for d in draws]
        board = tuple(tuple(sorted(r)) for r in rows)
        got = layout.risks(board, cards, rests, [{} for _ in draws])
        for d in range(len(draws)):
            for i, dest in enumerate(layout.plans):
                placed = place(rows, cards[d], dest)
                assert got[d][i] == card_level(placed, rests[d])
                suited += any(suits_matter(r, placed[r]) for r in range(3))
    assert suited > 20   # the card-level path was taken too


def test_a_joker_unseen_takes_the_card_level_count() -> None:
    assert suits_matter(0, (JOKER_BASE,)) and rank_counts(np.array([3, JOKER_BASE])) is None
    rng = np.random.default_rng(4)
    rows, deck = suited_board(rng, 4)
    unseen = np.array(sorted(deck[:14]) + [JOKER_BASE], dtype=np.int64)
    draws = next_turn_draws(len(unseen), 5, samples=3)
    layout = draw_layout(tuple(room_of(rows)))
    cards = [unseen[d].tolist() for d in draws]
    rests = [np.delete(unseen, d) for d in draws]
    got = layout.risks(tuple(tuple(sorted(r)) for r in rows), cards, rests, [{} for _ in draws])
    assert got == [[card_level(place(rows, cards[d], dest), rests[d]) for dest in layout.plans]
                   for d in range(len(draws))]


def test_the_grid_pool_starts_afresh_past_its_limit() -> None:
    pool = GridPool(limit=4)
    pool.make_room(4)
    first = pool.find(1, (0, 5, 10, 17))   # one free slot: two forms
    table = dense_ranks(rank_table(1, (0, 5, 10, 17)))
    assert np.array_equal(pool.grids[first][:, 0], table) and np.array_equal(pool.grids[first + 1][0], table)
    assert pool.find(1, (17, 10, 5, 0)) == first and pool.size == pool.fixed + 2
    pool.make_room(4)   # past the limit: the ids handed out are void
    assert pool.size == pool.fixed and not pool.ids and not pool.by_ranks
    assert pool.find(2, (0, 4, 8)) == SUITED   # a flush draw: the suits matter
    assert rank_classes.grid_pool() is rank_classes.grid_pool()
    assert rank_classes.grid_pool().limit == rank_classes.grid_pool().fixed + rank_classes.POOL_LIMIT


def test_full_rows_read_the_constant_grid_of_their_rank() -> None:
    pool = GridPool()
    for row, cards in ((2, (1, 2, 6, 7, 11)), (0, (4, 5, 51)), (1, (0, 8, 20, 28, 44))):
        at = pool.find(row, cards)
        assert at < pool.fixed and (pool.grids[at] == at).all()
        assert RANK_VALUES[at] == rank_table(row, tuple(sorted(cards)))
    assert pool.size == pool.fixed


def test_rows_of_the_same_ranks_share_grids_unless_their_suits_count() -> None:
    pool = GridPool()
    pool.make_room(20)
    # middle 2c 7d 9h Ks + one slot, and the same ranks in other suits: the same tables
    first = pool.find(1, (0, 21, 30, 44))
    assert pool.find(1, (1, 22, 31, 47)) == first
    # a full bottom of the same ranks, a flush (clubs) and not: different ranks, different grids
    flush, plain = pool.find(2, (0, 8, 20, 28, 44)), pool.find(2, (1, 8, 20, 28, 44))
    assert flush > plain
    assert pool.find(2, (0, 8, 20, 28)) == SUITED   # four clubs and a slot: a flush draw


def test_the_compiled_count_is_the_array_count() -> None:
    rng = np.random.default_rng(8)
    grids = rng.integers(0, 30, (300, 13, 13)).astype(np.int16)
    grids[:150] = np.minimum(grids[:150], grids[:150].transpose(0, 2, 1))   # pair tables are symmetric
    at = rng.integers(0, 300, (3, 400))
    for most in (2, 5, 9, 17):   # 17: five bit planes (the array count is exact in float32 up to here)
        counts = rng.integers(0, most, (400, 13)).astype(np.float32)
        n = 40
        expected = rank_graph_risks(grids[at[0]], grids[at[1]], grids[at[2]], counts, n)
        assert rank_risks(grids, at, counts, n) == expected
        assert len(set(expected)) > 50   # the boards differ


def test_the_compiled_layout_count_is_the_array_count_of_its_boards() -> None:
    """layout_rank_risks gathers each (draw, plan) board's grids as rank_risks reads them."""
    rng = np.random.default_rng(9)
    grids = rng.integers(0, 30, (300, 13, 13)).astype(np.int16)
    layout = draw_layout((1, 1, 2))
    draws = 5
    parts = rng.integers(0, 290, (draws, len(layout.parts)))
    form_parts = np.array([k for k, _ in layout.forms], dtype=np.intp)
    form_offsets = np.array([f for _, f in layout.forms], dtype=np.int64)
    plans = len(layout.plans)
    for most in (3, 5, 17):
        counts = rng.integers(0, most, (draws, 13)).astype(np.float32)
        n = 40
        got = layout_rank_risks(grids, parts, form_parts, form_offsets, layout.picks, counts, n)
        for d in range(draws):
            ids = parts[d, form_parts] + form_offsets
            at = np.array([[ids[layout.picks[r, i]]] for r in range(3) for i in range(plans)]).reshape(3, plans)
            expected = rank_graph_risks(grids[at[0]], grids[at[1]], grids[at[2]],
                                        np.repeat(counts[d:d + 1], plans, axis=0), n)
            assert got[d * plans:(d + 1) * plans] == expected
        assert len(set(got)) > 50   # the boards differ
    parts[2, layout.plan_parts[4][0]] = SUITED   # a board whose suits matter: 0, judged over the cards
    counts = rng.integers(0, 4, (draws, 13)).astype(np.float32)
    assert layout_rank_risks(grids, parts, form_parts, form_offsets, layout.picks, counts, 40)[2 * plans + 4] == 0.0


def test_the_one_count_over_cards_equals_the_array_count_on_random_graphs() -> None:
    """count_kernel.fouled_counts, the count every caller uses, on random fouled-pair arrays
    (asymmetric, any diagonal), one card per class and several, against the array counts."""
    from parlor.agents.ofc import count_kernel

    rng = np.random.default_rng(10)
    for n in (3, 13, 40, 62):
        fouled = rng.random((30, n, n)) < rng.random((30, 1, 1))
        got = count_kernel.risks(count_kernel.fouled_counts(fouled, np.ones((30, n), dtype=np.int64)), n)
        g = (fouled & fouled.transpose(0, 2, 1) & ~np.eye(n, dtype=bool)).astype(np.float64)
        want = [(c / 6.0) / (n * (n - 1) * (n - 2) / 6.0) for c in ((g @ g) * g).sum(axis=(1, 2)).tolist()]
        assert got == want, n
    fouled = rng.random((30, 13, 13)) < 0.5
    counts = rng.integers(0, 5, (30, 13)).astype(np.float32)
    assert count_kernel.risks(count_kernel.fouled_counts(fouled, counts), 40) == rank_graph_risks(
        fouled, np.zeros((30, 13, 13), dtype=bool), np.zeros((30, 13, 13), dtype=bool), counts, 40)


def test_the_count_names_what_does_not_fit() -> None:
    from parlor.agents.ofc import count_kernel

    with pytest.raises(ValueError, match="at most 62 classes"):
        count_kernel.fouled_counts(np.zeros((1, 63, 63), dtype=bool), np.ones((1, 63), dtype=np.int64))
    with pytest.raises(ValueError, match="fewer than 64 cards per class"):
        count_kernel.fouled_counts(np.zeros((1, 13, 13), dtype=bool), np.full((1, 13), 64, dtype=np.int64))


def test_the_rank_part_of_a_row_key_is_its_row_and_ranks() -> None:
    """GridPool.add shares grids by the key's low bits: the same for rows of the same ranks
    whatever their suits, different for any other ranks or row."""
    rng = np.random.default_rng(10)
    seen: dict[int, tuple[int, tuple[int, ...]]] = {}
    for _ in range(3000):
        row = int(rng.integers(0, 3))
        cards = rng.choice(52, int(rng.integers(0, ROW_SIZES[row])), replace=False).tolist()
        ranks = (row, tuple(sorted(c // 4 for c in cards)))
        assert seen.setdefault(rank_classes.row_key(row, cards) & rank_classes.RANKS_OF_KEY, ranks) == ranks
    assert len(seen) > 900
