"""Poker ranking (envs/engine/hands.py, double_deck_hands.py): exhaustive category counts, agreement with
independent libraries (treys, pokerkit), and hand-worked golden cases."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from parlor.envs.engine import hands as H
from parlor.envs.engine.cards import format_cards, parse_cards, short32
from parlor.envs.engine.double_deck_hands import evaluators, rank5_double, rank5_double_batch
from parlor.envs.engine.hand_names import category_name, describe, why_better
from parlor.envs.engine.hands import Category, category, is_royal, rank3, rank5, rank5_batch, rank_values
from tests.tiers import first_share


def r5(text: str) -> int:
    return rank5(parse_cards(text))


def r3(text: str) -> int:
    return rank3(parse_cards(text))


def all_five_card_hands(n: int = 52) -> np.ndarray:
    """Every 5-subset of range(n), lexicographic, as int64 [C(n,5), 5] (built in numpy)."""
    from math import comb

    out = np.empty((comb(n, 5), 5), dtype=np.int64)
    row = 0
    # fix the first two cards, fill the last three from a precomputed 3-subset list
    triples = {m: np.array([(a, b, c) for a in range(m) for b in range(a + 1, m) for c in range(b + 1, m)],
                           dtype=np.int64).reshape(-1, 3) for m in range(n + 1)}
    for a in range(n):
        for b in range(a + 1, n):
            t = triples[n - b - 1] + b + 1
            out[row:row + len(t), 0] = a
            out[row:row + len(t), 1] = b
            out[row:row + len(t), 2:] = t
            row += len(t)
    assert row == len(out)
    return out


# ---------------------------------------------------------------- exhaustive
def test_exhaustive_52_card_category_counts_and_7462_distinct_ranks() -> None:
    hands = all_five_card_hands()
    ranks = rank5_batch(hands)
    counts = np.bincount(ranks >> H.CATEGORY_SHIFT, minlength=10)
    assert counts.tolist() == [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 40, 0]
    assert len(np.unique(ranks)) == 7462
    royals = [is_royal(int(v)) for v in np.unique(ranks[ranks >> H.CATEGORY_SHIFT == Category.STRAIGHT_FLUSH])]
    assert sum(royals) == 1 and int((ranks == ranks.max()).sum()) == 4
    # scalar and batch agree on a spread of the exhaustive set
    for i in range(0, len(hands), 9973):
        assert rank5(hands[i].tolist()) == ranks[i]


# ---------------------------------------------------------------- independent libraries
def _treys_cards(ids) -> list[int]:
    from treys import Card

    return [Card.new(t) for t in format_cards(ids).split()]


@pytest.mark.parametrize("pairs", first_share(4_000))  # make test: the first 4,000 of the 20,000 pairs
def test_ordering_agrees_with_treys_on_random_pairs(pairs: int | None) -> None:
    from treys import Evaluator

    ev = Evaluator()
    rng = np.random.default_rng(7)
    for _ in range(20_000 if pairs is None else pairs):
        deal = rng.choice(52, size=10, replace=False)
        a, b = deal[:5].tolist(), deal[5:].tolist()
        ta = ev.evaluate(_treys_cards(a[:2]), _treys_cards(a[2:]))
        tb = ev.evaluate(_treys_cards(b[:2]), _treys_cards(b[2:]))
        ours = np.sign(rank5(a) - rank5(b))
        assert ours == np.sign(tb - ta), (format_cards(a), format_cards(b))  # treys: lower is stronger


@pytest.mark.parametrize("pairs", first_share(300))  # make test: the first 300 of the 1,500 pairs
def test_categories_and_ordering_agree_with_pokerkit(pairs: int | None) -> None:
    from pokerkit import StandardHighHand

    labels = {
        "High card": Category.HIGH_CARD, "One pair": Category.PAIR, "Two pair": Category.TWO_PAIR,
        "Three of a kind": Category.TRIPS, "Straight": Category.STRAIGHT, "Flush": Category.FLUSH,
        "Full house": Category.FULL_HOUSE, "Four of a kind": Category.QUADS,
        "Straight flush": Category.STRAIGHT_FLUSH,
    }
    rng = np.random.default_rng(11)
    for _ in range(1500 if pairs is None else pairs):
        deal = rng.choice(52, size=10, replace=False)
        a, b = deal[:5].tolist(), deal[5:].tolist()
        pa, pb = (StandardHighHand(format_cards(x).replace(" ", "")) for x in (a, b))
        assert category(rank5(a)) == labels[pa.entry.label.value]
        assert np.sign(rank5(a) - rank5(b)) == (pa > pb) - (pa < pb)


def test_scalar_and_batch_agree_on_random_hands_with_double_deck_and_jokers() -> None:
    rng = np.random.default_rng(3)
    hands = np.array([rng.choice(112, size=5, replace=False) for _ in range(20_000)])
    batch = rank5_batch(hands)
    assert batch.dtype.kind == "i" and (batch > 0).all()   # every reachable table entry is filled
    assert [rank5(h) for h in hands.tolist()] == batch.tolist()


# ---------------------------------------------------------------- ties and grouped ranks
@pytest.mark.parametrize("stronger, weaker", [
    ("3c 3d 3h 3s 4c", "2c 2d 2h 2s Ac"),      # quads: quad rank first
    ("3c 3d 3h 2s 2c", "2c 2d 2h As Ac"),      # full house: trips rank first
    ("Kc Kd 2h 2s 3c", "Qc Qd Jh Js Ac"),      # two pair: higher pair
    ("Kc Kd 5h 5s 3c", "Kh Ks 4c 4d Ac"),      # then lower pair
    ("Kc Kd 5h 5s 9c", "Kh Ks 5c 5d 8c"),      # then kicker
    ("2c 3d 4h 5s 6c", "Ac 2d 3h 4s 5c"),      # the wheel is the lowest straight
    ("Ac Kd Qh Js Tc", "Kc Qd Jh Ts 9c"),      # broadway is the highest
    ("Ac Kc Qc Jc 9c", "Ad Kd Qd Jd 8d"),      # flush card by card
    ("2c 3c 4c 5c 6c", "Ac Kc Qc Jc 9c"),      # any straight flush beats any flush
    ("Tc Jc Qc Kc Ac", "9d Td Jd Qd Kd"),      # royal flush on top of straight flushes
])
def test_r1_4_ties_compare_grouped_ranks_then_kickers(stronger: str, weaker: str) -> None:
    assert r5(stronger) > r5(weaker)


def test_r1_4_suits_never_break_ties() -> None:
    assert r5("Ac Kd Qh Js 9c") == r5("As Kh Qd Jc 9s")
    assert r5("Ac Kc Qc Jc 9c") == r5("As Ks Qs Js 9s")


def test_r1_4_no_wrap_around_straight() -> None:
    assert category(r5("Kc Ad 2h 3s 4c")) == Category.HIGH_CARD
    assert category(r5("Qc Kd Ah 2s 3c")) == Category.HIGH_CARD
    assert rank_values(r5("Ac 2d 3h 4s 5c")) == (3,)   # five-high


def test_rank_values_and_encoding() -> None:
    assert rank_values(r5("Qc Qd 9h 8s 2c")) == (10, 7, 6, 0)
    assert rank_values(r5("3c 3d 3h 2s 2c")) == (1, 0)
    assert rank_values(r5("Kc Kd 5h 5s 9c")) == (11, 3, 7)
    assert category(r5("Ac Ad Ah As Kc")) == Category.QUADS and rank_values(r5("Ac Ad Ah As Kc")) == (12, 11)
    assert describe(r5("Tc Jc Qc Kc Ac")) == "royal flush"
    assert describe(r5("Qc Qd 9h 8s 2c")) == "pair Q 9 8 2"


def test_hand_names_say_why_one_hand_beats_another() -> None:
    assert category_name(r5("Tc Jc Qc Kc Ac")) == "royal flush" and describe(r3("Qc Qd 2h")) == "pair Q 2"
    assert why_better(r5("2c 5c 9c Jc Kc"), r5("5d 6c 7h 8s 9c")) == "flush beats straight"
    assert why_better(r5("Qc Qd 9h 8s 2c"), r5("9c 9d Ah Ks Qc")) == "both pair: Q beats 9"
    assert why_better(r5("Kc Kd 8h 8s 7c"), r5("Kh Ks 8c 8d 4c")) == "both two pair K 8: kicker 7 beats 4"
    assert why_better(r5("Kc Kd 8h 8s 7c"), r5("Kh Ks 8c 8d 7d")) == "equal hands"


def test_bad_input_raises_value_error() -> None:
    for bad in ([1, 2, 3, 4], [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, -1], [1, 2, 3, 4, 112], None):
        with pytest.raises(ValueError):
            rank5(bad)
    with pytest.raises(ValueError):
        rank3([1, 2])
    with pytest.raises(ValueError):
        rank5_batch(np.zeros((3, 4), dtype=int))
    with pytest.raises(ValueError):
        rank5_batch(np.array([[0, 1, 2, 3, 112]]))
    with pytest.raises(ValueError):
        rank5_batch(np.array([[0, 1, 2, 3, -1]]))
    with pytest.raises(ValueError):
        rank5_batch(np.zeros((3, 5), dtype=float))
    with pytest.raises(ValueError, match="rank3_batch"):
        H.rank3_batch(np.array([[0, 1, -1]], dtype=np.int8))
    with pytest.raises(ValueError, match=r"\[0, 1, 2, 3, 200\]"):   # names the bad hand
        rank5_batch(np.array([[4, 5, 6, 7, 8]] * 70_000 + [[0, 1, 2, 3, 200]], dtype=np.uint8))


def test_batch_accepts_lists_small_dtypes_and_empty_input() -> None:
    rows = [list(parse_cards("As Ks Qs Js Ts")), list(parse_cards("2c 2d Xx 7h 9s"))]
    expected = [rank5(r) for r in rows]
    assert rank5_batch(rows).tolist() == expected
    for dtype in (np.int8, np.uint8, np.int16, np.int32, np.uint64):
        assert rank5_batch(np.array(rows, dtype=dtype)).tolist() == expected
    assert rank5_batch(np.array(rows)[:, ::-1]).tolist() == expected   # non-contiguous view
    assert rank5_batch(np.zeros((0, 5), dtype=np.int64)).shape == (0,)


# ---------------------------------------------------------------- short deck
def test_r2_6_short_deck_ace_seven_to_ten_is_not_a_straight() -> None:
    assert category(r5("Ac 7d 8h 9s Tc")) == Category.HIGH_CARD
    assert category(r5("Ac 7c 8c 9c Tc")) == Category.FLUSH
    assert category(r5("7c 8d 9h Ts Jc")) == Category.STRAIGHT
    assert category(r5("Tc Jd Qh Ks Ac")) == Category.STRAIGHT


def test_short_deck_exhaustive_straights_are_the_four_real_runs() -> None:
    deck = np.array(short32())
    hands = deck[all_five_card_hands(32)]
    cats = rank5_batch(hands) >> H.CATEGORY_SHIFT
    # runs 7-J, 8-Q, 9-K, T-A: 4 * 4**5 hands, 16 of them one suit
    assert int((cats == Category.STRAIGHT).sum()) == 4 * (4**5 - 4)
    assert int((cats == Category.STRAIGHT_FLUSH).sum()) == 16
    ranks = np.sort((hands % 52) // 4, axis=1)
    ace_low = (ranks == [5, 6, 7, 8, 12]).all(1)
    assert ace_low.sum() == 4**5 and (cats[ace_low] <= Category.FLUSH).all()
    assert set(cats[ace_low].tolist()) == {Category.HIGH_CARD, Category.FLUSH}


# ---------------------------------------------------------------- 3-card rows (OFC top)
def test_r1_2_top_qq7_over_middle_qq654_fouls() -> None:
    assert r3("Qc Qd 7h") > r5("Qh Qs 6c 5d 4h")


def test_r1_2_top_qq7_over_middle_qq982_is_legal() -> None:
    assert not r3("Qc Qd 7h") > r5("Qh Qs 9c 8d 2h")


def test_r1_2_top_equal_over_its_own_cards_is_not_stronger() -> None:
    assert not r3("Ac Kd Qh") > r5("As Ks Qd Jc 9h")
    assert not r3("7c 7d 7h") > r5("7s 7c* 7d* 3h 2s")   # trips 7 vs trips 7 with kickers
    assert r3("7c 7d 7h") < r5("7s 8c 8d 8h 2c")
    assert not r3("Qc Qd 7h") > r5("Qh Qs 7c 3d 2h")


def test_r1_2_top_category_first() -> None:
    assert r3("2c 2d 2h") > r5("Ac Ad Kh Ks Qc")        # trips beat two pair
    assert r3("2c 2d 3h") > r5("Ac Kd Qh Js 9c")        # pair beats high card
    assert r3("Ac Ad Kh") < r5("2c 2d 3h 3s 4c")         # two pair beats a pair
    assert r3("Ac Kd Qh") < r5("2c 2d 3h 4s 5c")


def test_r1_4_rank3_categories_and_order() -> None:
    assert category(r3("Ac Kd Qh")) == Category.HIGH_CARD and rank_values(r3("Ac Kd Qh")) == (12, 11, 10)
    assert category(r3("Qc Qd 7h")) == Category.PAIR and rank_values(r3("Qc Qd 7h")) == (10, 5)
    assert category(r3("7c Qd Qh")) == Category.PAIR and rank_values(r3("7c Qd Qh")) == (10, 5)
    assert category(r3("5c 5d 5h")) == Category.TRIPS
    assert category(r3("Jc Qd Kh")) == Category.HIGH_CARD        # no straights on top
    assert category(r3("Jc Qc Kc")) == Category.HIGH_CARD        # no flushes on top
    assert r3("Qc Qd 7h") > r3("Qh Qs 6c") > r3("Jc Jd Ah") > r3("Ac Kd Qh") > r3("Ac Kd Jh")
    assert r3("2c 2d 2h") > r3("Ac Ad Kh")
    assert r3("Qc Qd 7h") == r3("Qh Qs 7c")


# ---------------------------------------------------------------- jokers and double deck
@pytest.mark.parametrize("text, cat, values", [
    ("Ac Ad Ah As Xx", Category.FIVE_OF_A_KIND, (12,)),       # joker duplicates a card in hand
    ("7c 7d Xx Xy Xz", Category.FIVE_OF_A_KIND, (5,)),
    ("Xx Xy Xz Xw Xv", Category.FIVE_OF_A_KIND, (12,)),
    ("As Ks Qs Js Xx", Category.STRAIGHT_FLUSH, (12,)),        # royal flush
    ("9s Ks Qs Js Xx", Category.STRAIGHT_FLUSH, (11,)),        # joker fills the ten: K-high
    ("As Ks Qs 2s Xx", Category.FLUSH, (12, 11, 10, 9, 0)),    # best missing rank, not a second ace
    ("As Ks Qs Xx Xy", Category.STRAIGHT_FLUSH, (12,)),        # two jokers
    ("2h 3h 4h Xx Xy", Category.STRAIGHT_FLUSH, (4,)),         # 2-3-4-5-6 beats the wheel
    ("Ah 2h 3h Xx Xy", Category.STRAIGHT_FLUSH, (3,)),         # only the wheel fits
    ("Ac Kd Qh Js Xx", Category.STRAIGHT, (12,)),
    ("9c Jd Qh Ks Xx", Category.STRAIGHT, (11,)),
    ("2c 3d 4h Xx Xy", Category.STRAIGHT, (4,)),
    ("Kc Kd 4h 4s Xx", Category.FULL_HOUSE, (11, 2)),
    ("Kc Kd Kh 4s Xx", Category.QUADS, (11, 2)),
    ("Kc Kd 4h 5s Xx", Category.TRIPS, (11, 3, 2)),
    ("Kc 2d 4h 7s Xx", Category.PAIR, (11, 5, 2, 0)),
    ("Kc Kd Xx Xy 2c", Category.QUADS, (11, 0)),
    ("Ac 2d Xx Xy 9c", Category.TRIPS, (12, 7, 0)),
    ("As As* Ks Qs Js", Category.FLUSH, (12, 12, 11, 10, 9)),  # double deck: flush with a pair
    ("As As* Ah Ah* Ad", Category.FIVE_OF_A_KIND, (12,)),      # double deck: five of a kind
    ("Kc Kc* Kd Qs Qs*", Category.FULL_HOUSE, (11, 10)),
    ("As As* Xx Xy Xz", Category.FIVE_OF_A_KIND, (12,)),
    ("As As* Ks Qs Xx", Category.FLUSH, (12, 12, 11, 10, 9)),  # joker takes the missing jack
])
def test_r3_3_jokers_and_double_deck_golden(text: str, cat: Category, values: tuple[int, ...]) -> None:
    rank = r5(text)
    assert (category(rank), rank_values(rank)) == (cat, values)
    assert rank5_batch(np.array([parse_cards(text)]))[0] == rank


def test_r3_3_five_of_a_kind_ranks_above_straight_flush() -> None:
    assert r5("2c 2d 2h 2s Xx") > r5("Tc Jc Qc Kc Ac")
    assert r5("As As* Ks Qs Js") > r5("Ac Kc Qc Jc 9c")
    assert r5("Ac Ac* Kd Qh Js") == r5("Ad Ah Kc Qs Jd")    # the identical copy is just a card


def test_rank3_with_jokers_and_duplicates() -> None:
    assert rank_values(r3("Ac Xx 7d")) == (12, 5) and category(r3("Ac Xx 7d")) == Category.PAIR
    assert category(r3("Ac Ac* Xx")) == Category.TRIPS
    assert r3("Xx Xy Xz") == r3("Ac Ad Ah")


# ---------------------------------------------------------------- jokers in a double deck (Washizu extra_deck)
@pytest.mark.parametrize("text, cat, values", [
    ("As Ks Qs 2s Xx", Category.FLUSH, (12, 12, 11, 10, 0)),   # the joker is As*: A-A-K-Q-2
    ("As As* Ks Qs Xx", Category.FLUSH, (12, 12, 11, 11, 10)), # both aces real: the joker is Ks*
    ("As As* Ks Ks* Xx", Category.FULL_HOUSE, (12, 11)),       # a third ace beats any flush
    ("As Ks Qs Js Xx", Category.STRAIGHT_FLUSH, (12,)),        # a straight flush still comes first
    ("As Ks Qs Xx Xy", Category.STRAIGHT_FLUSH, (12,)),
    ("2s 2s* 3s 3s* Xx", Category.FULL_HOUSE, (1, 0)),
    ("2s 2s* 3s 4s Xx", Category.FLUSH, (12, 2, 1, 0, 0)),     # the joker is the ace: a flush beats trips
])
def test_r3_3_double_deck_joker_in_a_flush_may_be_a_twin(text: str, cat: Category, values: tuple[int, ...]) -> None:
    rank = rank5_double(parse_cards(text))
    assert (category(rank), rank_values(rank)) == (cat, values)
    assert rank5_double_batch(np.array([parse_cards(text)]))[0] == rank


def test_r3_3_issue_23_double_deck_joker_flush_beats_what_it_can_become() -> None:
    joker_hand = parse_cards("As Ks Qs 2s Xx")
    assert rank5_double(joker_hand) > rank5_double(parse_cards("As Ks Ks* Qs 2s"))   # it can be Ks*
    assert rank5_double(joker_hand) > rank5_double(parse_cards("Ah Kh Qh Jh 9h"))
    # one deck has no second As: the joker is the best missing card, the jack (§3.3)
    assert rank_values(rank5(joker_hand)) == (12, 11, 10, 9, 0)


def test_double_deck_evaluator_equals_the_one_deck_evaluator_without_jokers() -> None:
    rng = np.random.default_rng(8)
    hands = np.array([rng.choice(104, size=5, replace=False) for _ in range(20_000)])
    np.testing.assert_array_equal(rank5_double_batch(hands), rank5_batch(hands))
    with_jokers = np.array([rng.choice(112, size=5, replace=False) for _ in range(20_000)])
    assert [rank5_double(h) for h in with_jokers.tolist()] == rank5_double_batch(with_jokers).tolist()
    assert evaluators(True) == (rank5_double, rank5_double_batch) and evaluators(False) == (rank5, rank5_batch)


def becomes(hand: tuple[int, ...], deck: range) -> np.ndarray:
    """Every hand ``hand`` can become: each joker replaced by a card of ``deck`` that is not
    in the hand (two jokers: by two different such cards)."""
    real = [c for c in hand if c < 104]
    jokers = len(hand) - len(real)
    free = np.array([c for c in deck if c not in real])
    if jokers == 1:
        subs = free[:, None]
    else:
        i, j = np.triu_indices(len(free), k=1)
        subs = np.stack([free[i], free[j]], axis=1)
    return np.hstack([np.tile(real, (len(subs), 1)), subs])


@pytest.mark.parametrize("double_deck", [False, True])
def test_r3_3_a_joker_hand_never_ranks_below_a_hand_it_can_become(double_deck: bool) -> None:
    rank, batch = evaluators(double_deck)
    deck = range(104 if double_deck else 52)
    suited = [c for c in deck if c % 4 == 3]       # every 4 spades + a joker: the flush cases
    hands = [(*four, 104) for four in itertools.combinations(suited, 4)]
    rng = np.random.default_rng(5)
    for jokers in (1, 2):                           # and random hands with one or two jokers
        hands += [(*rng.choice(deck, 5 - jokers, replace=False).tolist(), *range(104, 104 + jokers))
                  for _ in range(150)]
    for hand in hands:
        best_real = int(batch(becomes(hand, deck)).max())
        assert rank(hand) >= best_real, (format_cards(hand), describe(rank(hand)), describe(best_real))
