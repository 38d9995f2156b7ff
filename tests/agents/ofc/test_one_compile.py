"""Each OFC numba kernel compiles one signature, whoever calls it.

numba compiles a kernel once per kind of argument: dtype, layout, writability, and a
constant argument (``Literal[int]``) each make another whole compile, paid on a fresh
clone's ``make test``. The callers pass one kind (the count kernels' wrappers hand read-only
int64 counts, the kernels pass int64 where a constant would be literal). These tests call
the kernels with the kinds their callers have (writable and read-only, int64 and float32
counts), check that the answers agree, and read numba's cache index of every kernel: the
signatures compiled since its source last changed, by this process or any earlier one.
"""
from __future__ import annotations

import importlib

import numpy as np
import pytest

KERNELS = ("parlor.agents.ofc.count_kernel", "parlor.agents.ofc.expert_kernel",
           "parlor.envs.ofc_outlook.turn_kernel", "parlor.envs.ofc_outlook.block_kernel")
SIGNATURES = {"_copy": 2}   # int64 rows and float64 rows; every other kernel one


def compiled_signatures(dispatcher) -> set[str]:
    """The signatures ``dispatcher`` holds in this process and in its cache index on disk."""
    sigs = {str(sig) for sig in dispatcher.signatures}
    cache_file = getattr(dispatcher._cache, "_cache_file", None)   # none with caching off
    if cache_file is not None:
        sigs |= {str(key[0]) for key in cache_file._load_index()}
    return sigs


def test_the_count_takes_any_kind_of_counts_and_fouled_pairs_alike() -> None:
    from parlor.agents.ofc import count_kernel
    from parlor.agents.ofc.rank_classes import layout_rank_risks, rank_risks

    rng = np.random.default_rng(3)
    fouled = rng.random((20, 13, 13)) < 0.5
    counts = rng.integers(0, 5, (20, 13))
    want = count_kernel.fouled_counts(np.broadcast_to(fouled, fouled.shape), counts)   # read-only, int64
    assert (count_kernel.fouled_counts(fouled, counts.astype(np.float32)) == want).all()
    assert (count_kernel.fouled_counts(fouled, counts.astype(np.int8)) == want).all()
    ones = count_kernel.fouled_counts(fouled, count_kernel.single_cards(20, 13))
    assert (count_kernel.fouled_counts(fouled, np.ones((20, 13), dtype=np.int64)) == ones).all()
    grids = rng.integers(0, 30, (40, 13, 13)).astype(np.int16)
    at = rng.integers(0, 40, (3, 20))
    assert rank_risks(grids, at, counts, 30) == rank_risks(grids, at, counts.astype(np.float32), 30)
    parts = rng.integers(0, 30, (4, 3))
    picks = np.zeros((3, 2), dtype=np.int64)
    args = (grids, parts, np.arange(3, dtype=np.intp), np.zeros(3, dtype=np.int64), picks)
    assert (layout_rank_risks(*args, counts[:4], 30)
            == layout_rank_risks(*args, counts[:4].astype(np.float32), 30, fits=True))


def test_the_count_refuses_counts_that_are_not_whole_numbers() -> None:
    from parlor.agents.ofc import count_kernel

    fouled = np.zeros((1, 13, 13), dtype=bool)
    with pytest.raises(ValueError, match="whole numbers"):
        count_kernel.fouled_counts(fouled, np.full((1, 13), 1.5))
    with pytest.raises(ValueError, match="must be numbers, got dtype <U1"):
        count_kernel.fouled_counts(fouled, np.full((1, 13), "1"))
    with pytest.raises(ValueError, match="fouled must be a bool array, got dtype int64"):
        count_kernel.fouled_counts(np.zeros((1, 13, 13), dtype=np.int64), np.ones((1, 13), dtype=np.int64))


def test_sort_descending_is_numpys_sort_reversed() -> None:
    from parlor.envs.ofc_outlook.turn_kernel import sort_descending

    rng = np.random.default_rng(4)
    for size in (0, 1, 2, 5, 13):
        cards = rng.integers(0, 8, size)   # repeats too
        want = np.sort(cards)[::-1]
        sort_descending(cards)
        assert cards.tolist() == want.tolist()


def test_every_kernel_compiles_one_signature() -> None:
    """After the kernels have run as their callers run them (the count's callers above, a
    heuristic-against-expert hand, the turn and feature-block kernels' own warm-ups)."""
    from numba.core.registry import CPUDispatcher

    from parlor import envs
    from parlor.agents.episodes import play_episode
    from parlor.agents.registry import make_agent
    from parlor.envs.ofc_outlook import block_kernel, turn_kernel

    test_the_count_takes_any_kind_of_counts_and_fouled_pairs_alike()
    turn_kernel.warm_up()
    block_kernel.warm_up()
    game = envs.make_game("ofc_v0", variant="pineapple", features=True)
    play_episode(game, [make_agent("heuristic", game, seed=0), make_agent("expert:2", game, seed=1)], seed=0)
    seen = {}
    for name in KERNELS:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.__module__ == name:
                seen[f"{name}.{attr}"] = compiled_signatures(value)
    assert len(seen) > 30   # the kernels of the four modules were found
    extra = {k: sorted(v) for k, v in seen.items() if len(v) > SIGNATURES.get(k.rsplit(".", 1)[1], 1)}
    assert not extra, f"kernels compiled more than once: {extra}"


def test_the_popcount_table_counts_the_bits_of_every_16_bit_number() -> None:
    from parlor.agents.ofc.count_kernel import POPCOUNT

    assert POPCOUNT.dtype == np.int64
    assert POPCOUNT.tolist() == [bin(m).count("1") for m in range(1 << 16)]
