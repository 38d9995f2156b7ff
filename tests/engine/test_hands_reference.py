"""Wild jokers and double-deck duplicates against a brute-force reference written
independently of envs/engine/hands.py: try every rank for every joker (and the
flush suit or not), evaluate the concrete cards, keep the best."""
from __future__ import annotations

from collections import Counter
from itertools import combinations_with_replacement

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from parlor.envs.engine.cards import JOKER_BASE, double104, format_cards, make_deck
from parlor.envs.engine.hands import Category, category, rank3, rank5, rank5_batch, rank_values

STRAIGHTS = [(top, set(range(top - 4, top + 1))) for top in range(12, 3, -1)] + [(3, {12, 0, 1, 2, 3})]


def concrete(ranks: list[int], flush: bool) -> tuple[int, tuple[int, ...]]:
    """(category, tiebreak ranks) of 5 concrete ranks; ``flush``: all one suit."""
    by_count = sorted(Counter(ranks).items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = [c for _, c in by_count]
    grouped = tuple(r for r, _ in by_count)
    straight = next((top for top, window in STRAIGHTS if set(ranks) == window), None)
    if shape[0] == 5:
        return Category.FIVE_OF_A_KIND, grouped
    if flush and straight is not None:
        return Category.STRAIGHT_FLUSH, (straight,)
    if shape[0] == 4:
        return Category.QUADS, grouped
    if shape[:2] == [3, 2]:
        return Category.FULL_HOUSE, grouped
    if flush:
        return Category.FLUSH, tuple(sorted(ranks, reverse=True))
    if straight is not None:
        return Category.STRAIGHT, (straight,)
    if shape[0] == 3:
        return Category.TRIPS, grouped
    if shape[:2] == [2, 2]:
        return Category.TWO_PAIR, grouped
    if shape[0] == 2:
        return Category.PAIR, grouped
    return Category.HIGH_CARD, grouped


def reference(cards: list[int]) -> tuple[int, tuple[int, ...]]:
    real = [c for c in cards if c < JOKER_BASE]
    ranks = [(c % 52) // 4 for c in real]
    one_suit = len({c % 4 for c in real}) <= 1
    best = None
    for sub in combinations_with_replacement(range(13), 5 - len(real)):
        # jokers may copy any card; in a flush they stand for cards missing from it
        may_flush = one_suit and len(set(sub)) == len(sub) and not set(sub) & set(ranks)
        for flush in {False, may_flush}:
            value = concrete(ranks + list(sub), flush)
            best = value if best is None or value > best else best
    return best


def reference3(cards: list[int]) -> tuple[int, tuple[int, ...]]:
    real = [(c % 52) // 4 for c in cards if c < JOKER_BASE]
    best = None
    for sub in combinations_with_replacement(range(13), 3 - len(real)):
        by_count = sorted(Counter(real + list(sub)).items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
        cat = {3: Category.TRIPS, 2: Category.PAIR, 1: Category.HIGH_CARD}[by_count[0][1]]
        value = (cat, tuple(r for r, _ in by_count))
        best = value if best is None or value > best else best
    return best


def random_hands(rng: np.random.Generator, deck: tuple[int, ...], n: int, size: int = 5) -> list[list[int]]:
    return [rng.choice(np.array(deck), size, replace=False).tolist() for _ in range(n)]


def test_jokers_and_double_deck_match_brute_force_reference() -> None:
    rng = np.random.default_rng(5)
    deck = make_deck("double104", jokers=5)
    hands = random_hands(rng, deck, 3000)
    # bias towards the interesting cases: many jokers, one suit, duplicates
    hands += [rng.choice(np.array(deck[:52:4] + deck[104:]), 5, replace=False).tolist() for _ in range(1000)]
    for _ in range(300):   # identical pairs As + As*
        a, b, c = rng.choice(20, 3, replace=False).tolist()
        hands.append([a, b, c, a + 52, b + 52])
    values = rank5_batch(np.array(hands))
    for hand, value in zip(hands, values.tolist()):
        assert rank5(hand) == value
        assert (category(value), rank_values(value)) == reference(hand), format_cards(hand)


def test_ordering_matches_reference_on_random_pairs() -> None:
    rng = np.random.default_rng(9)
    deck = make_deck("double104", jokers=2)
    for _ in range(2000):
        a, b = random_hands(rng, deck, 2)
        ra, rb = reference(a), reference(b)
        assert np.sign(rank5(a) - rank5(b)) == (ra > rb) - (ra < rb), (format_cards(a), format_cards(b))


def test_rank3_matches_reference_with_jokers_and_duplicates() -> None:
    rng = np.random.default_rng(2)
    for hand in random_hands(rng, make_deck("double104", jokers=3), 2000, size=3):
        assert (category(rank3(hand)), rank_values(rank3(hand))) == reference3(hand)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(double104()), min_size=5, max_size=5, unique=True), st.integers(0, 4))
def test_a_joker_never_weakens_a_hand(hand: list[int], slot: int) -> None:
    with_joker = hand[:slot] + [JOKER_BASE] + hand[slot + 1:]
    assert rank3(with_joker[:3]) >= rank3(hand[:3])
    twin_left = any(c % 52 == hand[slot] % 52 for i, c in enumerate(hand) if i != slot)
    if twin_left:
        # The one documented exception (module docstring of envs.engine.hands): in a flush
        # a joker stands for a card missing from it, so replacing one of two identical
        # double-deck cards by a joker can lower the flush (Ac* Kc Kc* 8c 2c > Ac* Kc* Q 8c 2c),
        # never its category.
        assert category(rank5(with_joker)) >= category(rank5(hand))
    else:
        assert rank5(with_joker) >= rank5(hand)


def test_a_joker_in_a_flush_stands_for_a_missing_card_even_beside_a_double_deck_twin() -> None:
    # found by the property above: Kc Ac* Kc* 8c* 2c is a flush A K K 8 2; with the ordinary
    # Kc replaced by a joker the flush is A K Q 8 2, as the rule says (no duplicated rank)
    hand = [44, 100, 96, 76, 0]
    assert format_cards(hand) == "Kc Ac* Kc* 8c* 2c"
    assert rank_values(rank5(hand)) == (12, 11, 11, 6, 0)
    with_joker = [JOKER_BASE] + hand[1:]
    assert (category(rank5(with_joker)), rank_values(rank5(with_joker))) == (Category.FLUSH, (12, 11, 10, 6, 0))


@settings(max_examples=300, deadline=None)
@given(st.permutations(list(range(5))), st.lists(st.sampled_from(make_deck("double104", jokers=2)),
                                                   min_size=5, max_size=5, unique=True))
def test_card_order_does_not_matter(order: list[int], hand: list[int]) -> None:
    assert rank5([hand[i] for i in order]) == rank5(hand)
    assert rank3([hand[i] for i in order if i < 3]) == rank3(hand[:3])


def test_second_copy_ranks_like_the_first() -> None:
    rng = np.random.default_rng(4)
    hands = np.array(random_hands(rng, tuple(range(52)), 5000))
    copies = np.where(rng.random(hands.shape) < 0.5, hands + 52, hands)
    assert (rank5_batch(hands) == rank5_batch(copies)).all()


def test_rank3_batch_agrees_with_rank3() -> None:
    from parlor.envs.engine.hands import rank3_batch

    rng = np.random.default_rng(8)
    rows = random_hands(rng, make_deck("double104", jokers=3), 5000, size=3)
    assert rank3_batch(np.array(rows)).tolist() == [rank3(r) for r in rows]
    assert rank3_batch(np.zeros((0, 3), dtype=np.int64)).shape == (0,)
