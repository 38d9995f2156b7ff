"""The evaluator's tables built in numpy equal the plain Python reading they replaced:
``_five_card_flushes`` is :func:`_flush_value` of every 5-rank multiset (no joker), and
``_plain_values`` the per-multiset reading below (the module's build before)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from parlor.envs.engine import hands


def _straight_top(ranks: Sequence[int]) -> int:
    """Top rank of a straight made of these 5 distinct ranks, else -1."""
    s = sorted(ranks)
    if s[4] - s[0] == 4:
        return s[4]
    if s == [0, 1, 2, 3, hands._ACE]:
        return 3
    return -1


def _plain_value(ranks: Sequence[int]) -> int:
    """Value of 5 real ranks (duplicates allowed), ignoring suits."""
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    groups = sorted(((n, r) for r, n in counts.items()), reverse=True)
    shape = tuple(n for n, _ in groups)
    vals = [r for _, r in groups]
    if shape == (5,):
        return hands._encode(hands.Category.FIVE_OF_A_KIND, vals)
    if shape == (4, 1):
        return hands._encode(hands.Category.QUADS, vals)
    if shape == (3, 2):
        return hands._encode(hands.Category.FULL_HOUSE, vals)
    if shape == (3, 1, 1):
        return hands._encode(hands.Category.TRIPS, vals)
    if shape == (2, 2, 1):
        return hands._encode(hands.Category.TWO_PAIR, vals)
    if shape == (2, 1, 1, 1):
        return hands._encode(hands.Category.PAIR, vals)
    top = _straight_top(vals)
    if top >= 0:
        return hands._encode(hands.Category.STRAIGHT, [top])
    return hands._encode(hands.Category.HIGH_CARD, vals)



def test_the_plain_values_are_the_plain_reading_of_every_multiset() -> None:
    multisets = hands._multisets(5)
    got = hands._plain_values(np.array(multisets, dtype=np.int64))
    assert got.tolist() == [_plain_value(ms) for ms in multisets]



def test_the_five_card_flushes_are_the_flush_values_of_every_multiset() -> None:
    keys, values = hands._five_card_flushes()
    want = {hands._KEY_SPAN + sum(hands.RANK_KEYS[r] for r in ms): hands._flush_value(ms, 0)
            for ms in hands._multisets(5) if all(ms.count(r) <= 2 for r in set(ms))}
    assert dict(zip(keys.tolist(), values.tolist())) == want
    assert len(set(keys.tolist())) == len(keys) == len(want)
