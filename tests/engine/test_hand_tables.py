"""The evaluator's tables built in numpy equal the plain Python reading they replaced:
``_five_card_flushes`` is :func:`_flush_value` of every 5-rank multiset (no joker)."""
from __future__ import annotations

from parlor.envs.engine import hands


def test_the_five_card_flushes_are_the_flush_values_of_every_multiset() -> None:
    keys, values = hands._five_card_flushes()
    want = {hands._KEY_SPAN + sum(hands.RANK_KEYS[r] for r in ms): hands._flush_value(ms, 0)
            for ms in hands._multisets(5) if all(ms.count(r) <= 2 for r in set(ms))}
    assert dict(zip(keys.tolist(), values.tolist())) == want
    assert len(set(keys.tolist())) == len(keys) == len(want)
