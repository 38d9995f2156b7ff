"""The category tables (built in numpy, at the first LineEvaluator) equal a straightforward
reference build: each category read off one hand's rank counts, or one suit's rank set, at a
time, in plain Python (the build the module did at import before)."""
from __future__ import annotations

from itertools import combinations_with_replacement

import numpy as np

from parlor.envs.buffalo_bill import categories as C
from parlor.envs.buffalo_bill.categories import CARD_VALUE, FACE_RANKS, NUMBER_RANKS, RUNS


def best_run(mask: int, length: int) -> int:
    return max((value for bits, value in RUNS[length] if mask & bits == bits), default=0)


def mask_values(mask: int) -> list[int]:
    return [CARD_VALUE[r] for r in range(13) if mask >> r & 1]


def groups(counts, at_least: int) -> list[int]:
    return sorted((at_least * CARD_VALUE[r] for r in range(13) if counts[r] >= at_least), reverse=True)


def rank_mask(counts) -> int:
    return sum(1 << r for r in range(13) if counts[r])


def total(counts) -> int:
    return sum(c * v for c, v in zip(counts, CARD_VALUE))


def held(counts, ranks) -> int:
    return sum(counts[r] for r in ranks)


RANK = {
    "four of a kind": lambda k: max(groups(k, 4), default=0),
    "full house": lambda k: total(k) if sorted(c for c in k if c) == [2, 3] else 0,
    "straight": lambda k: best_run(rank_mask(k), 5),
    "three of a kind": lambda k: max(groups(k, 3), default=0),
    "two pair": lambda k: sum(groups(k, 2)[:2]) if len(groups(k, 2)) >= 2 else 0,
    "one pair": lambda k: max(groups(k, 2), default=0),
    "high card": total,
    "blaze": lambda k: total(k) if held(k, FACE_RANKS) == 5 else 0,
    "four blaze": lambda k: 40 if held(k, FACE_RANKS) >= 4 else 0,
    "four straight": lambda k: best_run(rank_mask(k), 4),
    "sequence": lambda k: best_run(rank_mask(k), 3),
    "puritan": lambda k: total(k) if held(k, NUMBER_RANKS) == 5 else 0,
    "face cards": lambda k: sum(k[r] * CARD_VALUE[r] for r in FACE_RANKS),
    "number cards": lambda k: sum(k[r] * CARD_VALUE[r] for r in NUMBER_RANKS),
}
SUIT = {
    "straight flush": lambda m: best_run(m, 5),
    "big bobtail": lambda m: best_run(m, 4),
    "little bobtail": lambda m: best_run(m, 3),
    "bobtail": lambda m: max(best_run(m, 5), best_run(m, 4), best_run(m, 3)),
    "flush": lambda m: sum(mask_values(m)) if len(mask_values(m)) == 5 else 0,
    "four flush": lambda m: sum(mask_values(m)[-4:]) if len(mask_values(m)) >= 4 else 0,
}


def reference_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rank = np.zeros((C.NUM_MULTISETS, len(RANK)), dtype=np.int16)
    totals = np.zeros(C.NUM_MULTISETS, dtype=np.int16)
    for ranks in combinations_with_replacement(range(13), 5):
        counts = [0] * 13
        for r in ranks:
            counts[r] += 1
        i = C.multiset_index(ranks)
        rank[i] = [RANK[name](counts) for name in C.RANK_CATEGORIES]
        totals[i] = total(counts)
    suit = np.array([[SUIT[name](mask) for name in C.SUIT_CATEGORIES] for mask in range(1 << 13)], dtype=np.int16)
    return rank, totals, suit


def test_the_tables_equal_the_reference_build() -> None:
    assert set(RANK) == set(C.RANK_CATEGORIES) and set(SUIT) == set(C.SUIT_CATEGORIES)
    rank, totals, suit = reference_tables()
    built = C.tables()
    for got, want in ((built.rank, rank), (built.total, totals), (built.suit, suit)):
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got, want)
    assert not built.rank.flags.writeable   # shared by every evaluator


def test_every_multiset_has_its_own_row() -> None:
    ranks = list(combinations_with_replacement(range(13), 5))
    assert sorted(C.multiset_index(r) for r in ranks) == list(range(C.NUM_MULTISETS))


def test_importing_the_module_builds_no_table() -> None:
    """The tables wait for the first evaluator: a process that imports the game for anything
    else (a test module collected, a child process playing another game) pays nothing. The
    module's top level runs again here in a copy, beside the one imported."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("categories_copy", C.__file__)
    copy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(copy)
    assert copy.tables.cache_info().currsize == 0
    copy.LineEvaluator(C.STANDARD)
    assert copy.tables.cache_info().currsize == 1
