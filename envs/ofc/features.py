"""OFC placement features: the optional observation block of ``features=True``.

What a player reads off the boards before placing a card, as numbers in [0, 1]
(computed from the seat's :class:`OFCView` only, so nothing hidden leaks):

- per own row (top, middle, bottom): fill, the made hand so far (category and
  its two leading ranks, complete rows by the real evaluator, partial rows by
  their pairs/trips/quads), whether a flush / straight can still be made, the
  unseen cards that pair a card in the row;
- whether the rows are out of order right now (top over middle, middle over
  bottom: the made hands so far) and whether that is already final (the
  weaker lower row is complete and cannot improve: a foul);
- for the next pending card, per row: room, the made hand after placing it,
  whether it pairs the row, keeps a flush or straight alive, and whether the
  rows would then be out of order;
- the next card's rank and its unseen copies; own free slots;
- per opponent (relative seat): fill and made hand of each row and whether his
  rows are out of order;
- the outlook of each action for the next card (top, middle, bottom, discard):
  the best plan of the whole turn that starts with it, judged over 32 sampled
  completions of the board (:func:`envs.ofc.rollouts.evaluate_turn_plans`, the
  rule-based heuristic's planner; exact on the last turn): whether it is legal,
  its foul rate, royalties / 25, row strength / 27, Fantasyland rate, the
  planner's value ((value + 7) / 40) and a preference ``exp((value - best) / 2)``
  (1.0 for the planner's choice). The samples come from a fixed noise table
  picked by :func:`turn_key`, which stays the same for every card of one turn,
  so the card-by-card choices follow one consistent plan (re-drawing the samples
  for every card mixes plans and costs about 0.2 points per hand). Zero in a
  Fantasyland turn.

Version 2 (``FEATURES_VERSION``): the outlook plans the whole turn and adds the
value and preference (version 1 judged the next card alone, completing the
board from the unseen and the other pending cards alike).

A learner given these does not have to rediscover hand ranking from one-hot
cards; the plain card one-hots stay in the observation in front of the block.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from parlor.envs.engine.hands import category, rank3, rank5, rank_values
from parlor.envs.ofc.rollouts import FOUL_COST, evaluate_turn_plans
from parlor.envs.ofc.view import OFCView

ROW_SIZES = (3, 5, 5)
MAX_CATEGORY = 9.0          # five of a kind cannot occur in OFC; straight flush = 8
OWN_ROW = 8                 # features per own row
ORDER = 4                   # out-of-order flags (now, final) for top/middle and middle/bottom
NEXT_ROW = 7                # features per row for the next card
CARD = 3                    # next card rank, unseen copies, own free slots
OPP_ROW = 3
OPP = 3 * OPP_ROW + 2       # per opponent: rows + out-of-order flags
OUTLOOK = 7                 # per action: available, foul, royalties, strength, Fantasyland, value, preference
ROYALTY_SCALE, STRENGTH_SCALE = 25.0, 27.0
VALUE_SCALE = 40.0          # planner values run from -FOUL_COST (a sure foul) to about +30
PREF_TEMPERATURE = 2.0      # points: preference exp((value - best) / T)
FREE_SLOTS = 3 * OWN_ROW + ORDER + 3 * NEXT_ROW + 2   # index of own free slots / 13 in the block
FEATURES_VERSION = 2        # bump when the block changes (part of a trained policy's signature)


def size(num_players: int) -> int:
    """Length of the feature block for ``num_players`` seats."""
    return 3 * OWN_ROW + ORDER + 3 * NEXT_ROW + CARD + (num_players - 1) * OPP + 4 * OUTLOOK


def turn_key(view: OFCView) -> int:
    """Picks the outlook's sampling noise: a function of the cards this seat has seen
    (the same for every card of one turn: placing or discarding a pending card keeps
    it seen) and the hand; hashes of int tuples do not depend on the process."""
    return hash((view.hand_index, view.player, tuple(sorted(view.seen_cards())))) & 0x7FFFFFFF


def outlook(view: OFCView) -> list[float]:
    """Per action of the next card: [available, foul, royalties, strength, Fantasyland,
    value, preference] of the best turn plan starting with it."""
    out = [0.0] * (4 * OUTLOOK)
    if not view.pending or view.fantasyland[view.player]:
        return out
    actions, stats = evaluate_turn_plans(view, turn_key(view))
    best = float(stats.value.max())
    for i, a in enumerate(actions):
        value = float(stats.value[i])
        out[a * OUTLOOK:(a + 1) * OUTLOOK] = [
            1.0, float(stats.foul[i]), min(1.0, float(stats.royalty[i]) / ROYALTY_SCALE),
            min(1.0, float(stats.strength[i]) / STRENGTH_SCALE), float(stats.fantasyland[i]),
            min(1.0, max(0.0, (value + FOUL_COST) / VALUE_SCALE)), math.exp((value - best) / PREF_TEMPERATURE),
        ]
    return out


def block_of(observation: Sequence[float], num_players: int) -> Sequence[float]:
    """The feature block at the end of a ``features=True`` observation."""
    return observation[len(observation) - size(num_players):]


def made_hand(cards: Sequence[int], row: int) -> tuple[int, int, int]:
    """(category, leading rank, second rank) of a row so far.

    A complete row is ranked by the evaluator (straights and flushes count); a
    partial row only by its groups of equal rank (a pair, two pair, trips, full
    house, quads), ranks 0 = deuce .. 12 = ace; an empty row is (0, -1, -1).
    """
    if len(cards) == ROW_SIZES[row]:
        rank = rank3(cards) if row == 0 else rank5(cards)
        values = rank_values(rank)
        return int(category(rank)), values[0], values[1] if len(values) > 1 else -1
    if not cards:
        return 0, -1, -1
    counts: dict[int, int] = {}
    for c in cards:
        counts[c >> 2] = counts.get(c >> 2, 0) + 1
    groups = sorted(((n, r) for r, n in counts.items()), reverse=True)
    top_n = groups[0][0]
    second_n = groups[1][0] if len(groups) > 1 else 0
    if top_n == 4:
        cat = 7
    elif top_n == 3:
        cat = 6 if second_n >= 2 else 3
    elif top_n == 2:
        cat = 2 if second_n == 2 else 1
    else:
        cat = 0
    return cat, groups[0][1], groups[1][1] if len(groups) > 1 else -1


def hand_value(made: tuple[int, int, int]) -> int:
    """A made hand as one comparable number."""
    cat, first, second = made
    return (cat * 14 + first + 1) * 14 + second + 1


def flush_alive(cards: Sequence[int], row: int, suit_left: Sequence[int]) -> bool:
    if row == 0 or not cards:
        return row != 0
    suit = cards[0] & 3
    return all(c & 3 == suit for c in cards) and ROW_SIZES[row] - len(cards) <= suit_left[suit]


def straight_alive(cards: Sequence[int], row: int) -> bool:
    if row == 0:
        return False
    ranks = {c >> 2 for c in cards}
    if len(ranks) < len(cards):
        return False
    if not ranks:
        return True
    if max(ranks) - min(ranks) <= 4:
        return True
    low = {r if r != 12 else -1 for r in ranks}  # the wheel: ace plays low
    return max(low) - min(low) <= 4


def out_of_order(upper: tuple[int, int, int], upper_full: bool, lower: tuple[int, int, int],
                 lower_full: bool) -> tuple[float, float]:
    """(the upper row beats the lower now, and the lower row can no longer catch up)."""
    now = hand_value(upper) > hand_value(lower)
    return float(now), float(now and lower_full)


def own_row_features(out: list[float], cards: Sequence[int], row: int, made: tuple[int, int, int],
                     rank_left: Sequence[int], suit_left: Sequence[int]) -> None:
    ranks = {c >> 2 for c in cards}
    out += [
        len(cards) / ROW_SIZES[row],
        made[0] / MAX_CATEGORY,
        (made[1] + 1) / 13,
        (made[2] + 1) / 13,
        float(flush_alive(cards, row, suit_left)),
        float(straight_alive(cards, row)),
        sum(rank_left[r] for r in ranks) / 15,  # at most 5 ranks x 3 unseen copies
        float(len(cards) == ROW_SIZES[row]),
    ]


def features(view: OFCView) -> np.ndarray:
    """The feature block of ``view`` (float32, every entry in [0, 1])."""
    p, n = view.player, view.num_players
    rank_left, suit_left = [4] * 13, [13] * 4
    for c in view.seen_cards():
        rank_left[c >> 2] -= 1
        suit_left[c & 3] -= 1
    rows = view.rows[p]
    made = [made_hand(rows[r], r) for r in range(3)]
    full = [len(rows[r]) == ROW_SIZES[r] for r in range(3)]
    out: list[float] = []
    for r in range(3):
        own_row_features(out, rows[r], r, made[r], rank_left, suit_left)
    out += out_of_order(made[0], full[0], made[1], full[1])
    out += out_of_order(made[1], full[1], made[2], full[2])
    nxt = view.pending[0] if view.pending else None
    for r in range(3):
        if nxt is None or full[r]:
            out += [0.0] * NEXT_ROW
            continue
        after = (*rows[r], nxt)
        made_after = made_hand(after, r)
        upper = made[r - 1] if r > 0 else None
        lower = made[r + 1] if r < 2 else None
        bad = (upper is not None and hand_value(upper) > hand_value(made_after)) or \
              (lower is not None and hand_value(made_after) > hand_value(lower))
        out += [
            1.0,
            made_after[0] / MAX_CATEGORY,
            (made_after[1] + 1) / 13,
            sum(1 for c in rows[r] if c >> 2 == nxt >> 2) / 3,
            float(flush_alive(after, r, suit_left)),
            float(straight_alive(after, r)),
            float(bad),
        ]
    free = sum(ROW_SIZES) - sum(len(row) for row in rows)
    if nxt is None:
        out += [0.0, 0.0, free / 13]
    else:
        out += [((nxt >> 2) + 1) / 13, rank_left[nxt >> 2] / 3, free / 13]
    for k in range(1, n):
        q = (p + k) % n
        board = view.rows[q] if not view.hidden[q] else ((), (), ())
        opp_made = [made_hand(board[r], r) for r in range(3)]
        for r in range(3):
            out += [len(board[r]) / ROW_SIZES[r], opp_made[r][0] / MAX_CATEGORY, (opp_made[r][1] + 1) / 13]
        out.append(float(hand_value(opp_made[0]) > hand_value(opp_made[1])))
        out.append(float(hand_value(opp_made[1]) > hand_value(opp_made[2])))
    out += outlook(view)
    return np.asarray(out, dtype=np.float32)
