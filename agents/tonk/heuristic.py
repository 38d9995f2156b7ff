"""A rule-based Tonk player (``TonkHeuristic``).

It reads only the View (what its seat knows):
- declares a natural whenever it may (always worth at least the stakes);
- joins the spades side pot holding the Q, K or A of spades;
- drops when a Monte Carlo estimate says its count is probably the strict
  lowest: the other hands are sampled from the unseen cards (keeping the
  cards they took from the pile), threshold ``drop_probability``;
- takes the top discard when it makes a spread or a hit with its hand, or is a
  low card (<= 4) that pairs or connects with it; otherwise draws the stock;
- lays spreads and hits as soon as possible, the most count first;
- discards the card that is worth least to keep: high count, no pair, no
  suited neighbour.

Its results against random agents (seat rotation, duplicate deals, 95%
confidence intervals) come from ``parlor eval``, e.g. ``parlor eval tonk_v0
--agents heuristic,random --games 5000``.
"""
from __future__ import annotations

import numpy as np

from parlor.agents.base import SeededAgent
from parlor.envs.engine.melds import SPREADS, VALUES, accepts, mask_of, spreads_in
from parlor.envs.tonk.encode import (
    DECLARE_49,
    DISCARD_BASE,
    DRAW_STOCK,
    DROP,
    END_LAYING,
    HIT_BASE,
    LAY_BASE,
    MAX_SLOTS,
    SIDE_JOIN,
    SIDE_PASS,
    TAKE_DISCARD,
)
from parlor.envs.tonk.game import TonkGame
from parlor.envs.tonk.view import TonkView


class TonkHeuristic(SeededAgent):
    """Agent protocol (``agents/base.py``) for ``tonk_v0``."""

    def __init__(self, game: TonkGame, seed: int | None = None, drop_probability: float = 0.85, samples: int = 200):
        self.game = game
        self.drop_probability = drop_probability
        self.samples = samples
        super().__init__(seed)

    def act(self, observation, action_mask, view: TonkView, sample_world=None) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 1:
            return int(legal[0])
        if action_mask[DECLARE_49]:
            return DECLARE_49
        if action_mask[SIDE_JOIN]:
            spades = [c for c in view.hand if c % 4 == 3]
            return SIDE_JOIN if spades and max(spades) // 4 >= 10 else SIDE_PASS
        if action_mask[DRAW_STOCK]:
            if action_mask[DROP] and self.win_probability(view) >= self.drop_probability:
                return DROP
            return TAKE_DISCARD if action_mask[TAKE_DISCARD] and self.wants_discard(view) else DRAW_STOCK
        if action_mask[END_LAYING]:
            return self.best_play(legal)
        return self.best_discard(view, legal)

    # ------------------------------------------------------------ decisions
    def win_probability(self, view: TonkView) -> float:
        """Chance that our count is strictly the lowest, over sampled hidden hands."""
        mine = int(VALUES[list(view.hand)].sum())
        seen = set(view.hand) | set(view.discard_pile) | set(view.out_of_play)
        for sp in view.spreads:
            seen.update(sp.cards)
        known: dict[int, list[int]] = {}
        for seat in range(view.num_players):
            if seat != view.player:
                held = [c for c in view.taken_from_discard[seat] if c not in seen]
                if view.side_pot_shown[seat] >= 0 and view.side_pot_shown[seat] not in seen:
                    held.append(view.side_pot_shown[seat])
                known[seat] = sorted(set(held))
                seen.update(held)
        unseen = np.array([VALUES[c] for c in range(52) if c not in seen], dtype=np.int16)
        need = {s: view.hand_sizes[s] - len(k) for s, k in known.items()}
        total = sum(need.values())
        if total == 0 or unseen.size < total:
            others = [sum(int(VALUES[c]) for c in k) for k in known.values()]
            return float(all(mine < o for o in others))
        order = self.rng.random((self.samples, unseen.size)).argsort(axis=1)[:, :total]
        draws = unseen[order]
        wins = np.ones(self.samples, dtype=bool)
        at = 0
        for seat, k in known.items():
            counts = draws[:, at:at + need[seat]].sum(axis=1) + sum(int(VALUES[c]) for c in k)
            wins &= mine < counts
            at += need[seat]
        return float(wins.mean())

    def wants_discard(self, view: TonkView) -> bool:
        top = view.top_discard
        if top is None:
            return False
        hand = mask_of(view.hand)
        with_top = hand | (1 << top)
        if any(SPREADS[i].mask >> top & 1 for i in spreads_in(with_top, self.game.layable)):
            return True
        if any(self.fits(sp, top) for sp in view.spreads):
            return True
        return VALUES[top] <= 4 and self.closeness(top, view.hand) > 0

    def fits(self, sp, c: int) -> bool:
        s = SPREADS_BY_CARDS[sp.cards]
        sets_ok = not self.game.config.hit_runs_only
        return bool(accepts(s.kind, s.key, s.lo, s.hi, s.mask, sets_ok) >> c & 1)

    @staticmethod
    def closeness(c: int, hand) -> int:
        """How much ``c`` works with the rest of the hand: pairs count 3, suited neighbours 2 or 1."""
        score = 0
        for x in hand:
            if x == c:
                continue
            if x // 4 == c // 4:
                score += 3
            elif x % 4 == c % 4:
                gap = _run_gap(x // 4, c // 4)
                score += 2 if gap == 1 else 1 if gap == 2 else 0
        return score

    def best_play(self, legal: np.ndarray) -> int:
        """Lay or hit the most count at once; end laying only when nothing is left."""
        best, best_value = END_LAYING, 0
        for a in legal:
            if LAY_BASE <= a < HIT_BASE:
                value = int(VALUES[list(SPREADS[a - LAY_BASE].cards)].sum())
            elif HIT_BASE <= a < DISCARD_BASE:
                value = int(VALUES[(a - HIT_BASE) // MAX_SLOTS])
            else:
                continue
            if value > best_value:
                best, best_value = int(a), value
        return best

    def best_discard(self, view: TonkView, legal: np.ndarray) -> int:
        hand = view.hand
        scores = [(int(VALUES[c]) - 2 * self.closeness(c, hand), c) for c in hand]
        return DISCARD_BASE + max(scores)[1]


def _run_gap(r1: int, r2: int) -> int:
    """Distance of two ranks along a run, the ace counting low or high."""
    gaps = [abs(r1 - r2)]
    if r1 == 12 or r2 == 12:
        other = r2 if r1 == 12 else r1
        gaps.append(other + 1)
    return min(gaps)


SPREADS_BY_CARDS = {tuple(sorted(s.cards)): s for s in SPREADS}  # the View lists a spread's cards sorted
