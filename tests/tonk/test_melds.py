"""Sets and runs (docs/rules.md §5.3, §5.5) and the spread-id table of envs.engine.melds."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from parlor.envs.engine import melds
from parlor.envs.engine.cards import parse_card, parse_cards


def fits(text: str, spread: str, sets_allowed: bool = True) -> bool:
    sp = melds.SPREADS[melds.spread_id(parse_cards(spread))]
    acc = melds.accepts(sp.kind, sp.key, sp.lo, sp.hi, sp.mask, sets_allowed)
    return bool(acc >> parse_card(text) & 1)


@pytest.mark.parametrize("text", ["5c 5d 5h", "5c 5d 5h 5s", "Ac Ad As", "Kh Kd Ks"])
def test_r5_3_a_set_is_three_or_four_of_one_rank(text):
    assert melds.is_set(parse_cards(text)) and not melds.is_run(parse_cards(text))


@pytest.mark.parametrize("text", ["5c 5d", "5c 5d 6h", "5c 5d 5h 6c"])
def test_r5_3_not_a_set(text):
    assert not melds.is_spread(parse_cards(text))


@pytest.mark.parametrize("text", ["9d Td Jd", "Ah 2h 3h", "Qh Kh Ah", "2s 3s 4s 5s 6s 7s", "Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc"])
def test_r5_3_runs_with_ace_low_or_high(text):
    assert melds.is_run(parse_cards(text))


@pytest.mark.parametrize("text", ["Kd Ad 2d", "Qd Kd Ad 2d", "9d Td Qd", "9d Td Jh", "9d Td"])
def test_r5_3_not_a_run_ace_never_in_the_middle(text):
    assert not melds.is_run(parse_cards(text))


def test_spread_table_counts_65_sets_and_76_runs_per_suit():
    kinds = [s.kind for s in melds.SPREADS]
    assert kinds.count(melds.SET) == 65 and kinds.count(melds.RUN) == 304
    assert len({s.mask for s in melds.SPREADS}) == melds.NUM_SPREADS  # every card group listed once
    assert melds.SPREAD_INCIDENCE.sum(axis=1).tolist() == melds.SPREAD_SIZE.tolist()


def test_spread_table_matches_brute_force_over_small_groups():
    """Every 3- and 4-card group of two suits is a spread iff it is in the table."""
    cards = [c for c in range(52) if c % 4 in (0, 1)]
    for size in (3, 4):
        for group in itertools.combinations(cards, size):
            ranks = sorted(c // 4 for c in group)
            suits = {c % 4 for c in group}
            is_set = len(set(ranks)) == 1
            pos = sorted(r + 1 for r in ranks)
            low = sorted(0 if r == 12 else r + 1 for r in ranks)
            consecutive = any(p == list(range(p[0], p[0] + size)) for p in (pos, sorted(low)))
            expected = is_set or (len(suits) == 1 and consecutive)
            assert melds.is_spread(group) == expected, group


def test_spreads_in_finds_every_spread_of_a_hand():
    hand = melds.mask_of(parse_cards("5c 5d 5h 6h 7h"))
    found = {tuple(melds.SPREADS[i].cards) for i in melds.spreads_in(hand)}
    assert found == {tuple(parse_cards("5c 5d 5h")), tuple(parse_cards("5h 6h 7h"))}


def test_r5_5_hit_a_set_with_its_missing_suit_only_while_below_four():
    assert fits("5s", "5c 5d 5h") and not fits("6s", "5c 5d 5h")
    assert not fits("5s", "5c 5d 5h", sets_allowed=False)  # hit_runs_only
    four = melds.SPREADS[melds.spread_id(parse_cards("5c 5d 5h 5s"))]
    assert melds.accepts(four.kind, four.key, four.lo, four.hi, four.mask) == 0


def test_r5_5_hit_a_run_at_either_end():
    assert fits("8d", "9d Td Jd") and fits("Qd", "9d Td Jd")
    assert not fits("7d", "9d Td Jd") and not fits("Qh", "9d Td Jd")


def test_r5_5_hit_runs_ace_only_beyond_king_or_below_two():
    assert fits("4h", "Ah 2h 3h") and not fits("Kh", "Ah 2h 3h")
    assert fits("Jh", "Qh Kh Ah") and not fits("2h", "Qh Kh Ah")
    assert fits("Ah", "2h 3h 4h") and fits("Ah", "Jh Qh Kh")


def test_extend_run_moves_the_right_end():
    s = melds.SPREADS[melds.spread_id(parse_cards("2h 3h 4h"))]
    assert melds.extend_run(s.key, s.lo, s.hi, parse_card("Ah")) == (0, s.hi)
    assert melds.extend_run(s.key, s.lo, s.hi, parse_card("5h")) == (s.lo, s.hi + 1)
    with pytest.raises(ValueError):
        melds.extend_run(s.key, s.lo, s.hi, parse_card("7h"))


def test_r5_1_card_values_ace_one_faces_ten():
    assert melds.count(parse_cards("Ac 2d 9h Ts Jc Qd Kh")) == 1 + 2 + 9 + 40
    assert int(melds.VALUES.sum()) == 4 * (1 + 44 + 40)
    assert melds.mask_count(melds.mask_of(parse_cards("Ac Kd"))) == 11
    assert np.array_equal(melds.SPREAD_MASKS.astype(object), np.array([s.mask for s in melds.SPREADS], dtype=object))
