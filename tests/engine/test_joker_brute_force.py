"""Jokers against an independent brute force (docs/rules.md §3.3; issue 34.6).

The evaluators in ``engine/hands.py`` and ``engine/double_deck_hands.py`` read precomputed
tables. Here a joker hand's value is recomputed from the rules alone: every card the joker
can stand for is tried, and each resulting hand of real cards is ranked by a plain
reading of the categories. A joker may be any rank, even a card already held (five of a
kind); the hand counts as a flush only if the deck holds every card of it (one copy of
each card, two with Washizu's ``extra_deck``). With ``extra_deck`` a joker in a flush that
holds the first-deck ace is the second ace: ``As 2s 3s* 2s* Xx`` is A-A-3-2-2, not A-K-3-2-2.
"""
from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from parlor import envs
from parlor.envs.engine.cards import RANK, SUIT, parse_cards
from parlor.envs.engine.double_deck_hands import rank5_double
from parlor.envs.engine.hands import Category, category, rank5, rank_values

WHEEL = [0, 1, 2, 3, 12]


def plain_rank(cards: list[tuple[int, int]], copies: int) -> tuple[int, list[int]]:
    """(category, tie-break ranks) of five real (rank, suit) cards, straight from the rules."""
    ranks = [r for r, _ in cards]
    counts = Counter(ranks)
    groups = sorted(((n, r) for r, n in counts.items()), reverse=True)
    shape, grouped = [n for n, _ in groups], [r for _, r in groups]
    flush = len({s for _, s in cards}) == 1 and max(Counter(cards).values()) <= copies
    top = None
    if len(counts) == 5:
        low = sorted(ranks)
        top = low[4] if low[4] - low[0] == 4 else 3 if low == WHEEL else None
    if shape == [5]:
        return Category.FIVE_OF_A_KIND, grouped
    if top is not None and flush:
        return Category.STRAIGHT_FLUSH, [top]
    for category_, wanted in ((Category.QUADS, [4, 1]), (Category.FULL_HOUSE, [3, 2])):
        if shape == wanted:
            return category_, grouped
    if flush:
        return Category.FLUSH, sorted(ranks, reverse=True)
    if top is not None:
        return Category.STRAIGHT, [top]
    for category_, wanted in ((Category.TRIPS, [3, 1, 1]), (Category.TWO_PAIR, [2, 2, 1]), (Category.PAIR, [2, 1, 1, 1])):
        if shape == wanted:
            return category_, grouped
    return Category.HIGH_CARD, grouped


def brute_force(hand: list[int], copies: int) -> tuple[int, list[int]]:
    """The best hand over every card (rank and suit) each joker may stand for. Suits the hand
    lacks are interchangeable (only "all one suit" and the copies of a card count), so one of
    them stands for all; jokers are interchangeable too, so their cards are a multiset."""
    real = [(int(RANK[c]), int(SUIT[c])) for c in hand if c < 104]
    jokers = len(hand) - len(real)
    suits = sorted({s for _, s in real} | {min(set(range(4)) - {s for _, s in real}, default=0)})
    cards = [(r, s) for r in range(13) for s in suits]
    return max(plain_rank(real + list(subs), copies)
               for subs in itertools.combinations_with_replacement(cards, jokers))


def table_rank(hand: list[int], double_deck: bool) -> tuple[int, list[int]]:
    value = (rank5_double if double_deck else rank5)(hand)
    return category(value), list(rank_values(value))


def suited_joker_hands(copies: int) -> list[list[int]]:
    """Every hand of spades (each card at most ``copies`` times) with one or two jokers: every
    flush and straight flush a joker can make, up to which copy of a card is held."""
    hands = []
    for jokers in (1, 2):
        for ranks in itertools.combinations_with_replacement(range(13), 5 - jokers):
            if max(Counter(ranks).values(), default=0) > copies:
                continue
            seen: Counter = Counter()
            ids = []
            for r in ranks:   # the first spade of a rank, then its second-deck copy (52 higher)
                ids.append(r * 4 + 3 + 52 * seen[r])
                seen[r] += 1
            hands.append(ids + [104 + j for j in range(jokers)])
    return hands


def test_r3_3_the_issue_hand_is_a_flush_of_two_aces() -> None:
    hand = list(parse_cards("As 2s 3s* 2s* Xx"))
    assert table_rank(hand, True) == (Category.FLUSH, [12, 12, 1, 0, 0]) == brute_force(hand, 2)
    # it beats the flush the joker would make as the king, and the one-deck reading of the same ranks
    assert rank5_double(hand) > rank5_double(parse_cards("As Ks 3s* 2s 2s*"))
    game = envs.make_game("washizu_poker_v0", washizu="extra_deck")
    assert game.rank5 is rank5_double   # the showdown and the narration rank with the double-deck table


@pytest.mark.parametrize("double_deck", [True, False], ids=["extra_deck", "one_deck"])
def test_r3_3_every_suited_joker_hand_equals_the_brute_force(double_deck: bool) -> None:
    """Each value, and (the issue's check) the order: sorted by the table, no adjacent pair
    of hands is out of order for the brute force."""
    copies = 2 if double_deck else 1
    hands = sorted(suited_joker_hands(copies), key=rank5_double if double_deck else rank5)
    assert len(hands) == (2093 if double_deck else 1001)
    truth = [brute_force(h, copies) for h in hands]
    wrong = [(h, table_rank(h, double_deck), t) for h, t in zip(hands, truth) if table_rank(h, double_deck) != t]
    assert not wrong, f"{len(wrong)} hands differ, e.g. {wrong[:3]}"
    assert all(a <= b for a, b in itertools.pairwise(truth))


@pytest.mark.parametrize("double_deck", [True, False], ids=["extra_deck", "one_deck"])
def test_r3_3_random_hands_with_jokers_equal_the_brute_force(double_deck: bool) -> None:
    rng = np.random.default_rng(34)
    deck = 104 if double_deck else 52
    for jokers, count in ((0, 300), (1, 300), (2, 100)):
        for _ in range(count):
            hand = [*rng.choice(deck, 5 - jokers, replace=False).tolist(), *range(104, 104 + jokers)]
            assert table_rank(hand, double_deck) == brute_force(hand, 2 if double_deck else 1), hand
