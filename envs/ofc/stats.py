"""The statistics of an OFC episode (docs/rules.md §1.10): what ``OFCState.stats()`` reports.

:class:`EpisodeTally` counts, per seat, what each showdown adds (fouls, royalties,
Fantasyland entries; the hands played in Fantasyland, their points and stays);
:func:`episode_stats` turns the counts into the per-hand averages of ``State.stats()``
and :data:`MULTI_HAND_RATIOS` names the rates evaluation derives from them
(``OFCGame.stat_ratios`` when an episode has more than one hand).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# the rates of a multi-hand episode: (numerator, denominator) of OFCState.stats() entries
MULTI_HAND_RATIOS = {
    "fl_entry_rate": ("fantasyland", "regular_hands"),       # regular hands that qualified for Fantasyland
    "fl_stay_rate": ("fl_stays", "fl_hands"),                # Fantasyland hands that stayed
    "points_per_fl_hand": ("fl_points", "fl_hands"),
    "points_per_regular_hand": ("regular_points", "regular_hands"),
}


class EpisodeTally:
    """Per-seat counts over the hands of one episode (summed, never averaged here)."""

    __slots__ = ("foul", "fantasyland", "royalties", "fl_hands", "fl_points", "fl_stays")

    def __init__(self, num_players: int):
        n = num_players
        self.foul, self.fantasyland, self.royalties = [0] * n, [0] * n, [0] * n
        self.fl_hands, self.fl_points, self.fl_stays = [0] * n, [0] * n, [0] * n

    def showdown(self, results: Sequence[Any], points: Sequence[int], in_fl: Sequence[bool],
                 fl_next: Sequence[int]) -> None:
        """Count one scored hand: each seat's board result (``evaluate_board``), its points,
        whether it played the hand in Fantasyland and the Fantasyland cards it earned for
        the next hand (an entry for a regular hand, a stay for a Fantasyland hand)."""
        for p, res in enumerate(results):
            self.foul[p] += res.fouled
            self.royalties[p] += res.royalty
            if in_fl[p]:
                self.fl_hands[p] += 1
                self.fl_points[p] += points[p]
                self.fl_stays[p] += fl_next[p] > 0
            else:
                self.fantasyland[p] += fl_next[p] > 0

    def copy(self) -> EpisodeTally:
        new = EpisodeTally.__new__(EpisodeTally)
        for name in EpisodeTally.__slots__:
            setattr(new, name, list(getattr(self, name)))
        return new


def episode_stats(tally: EpisodeTally, hands_done: int, totals: Sequence[int],
                  multi_hand: bool) -> dict[str, list[float]]:
    """Per seat, averaged over the hands played: foul rate, Fantasyland entries, royalties;
    with ``multi_hand`` (more than one hand per episode) also the points (``totals``), and the
    hands played regular / in Fantasyland with their points and the Fantasyland hands that
    stayed (the terms of :data:`MULTI_HAND_RATIOS`)."""
    h = max(1, hands_done)
    out = {
        "foul": [x / h for x in tally.foul],
        "fantasyland": [x / h for x in tally.fantasyland],
        "royalties": [x / h for x in tally.royalties],
    }
    if multi_hand:
        fl_hands, fl_points = tally.fl_hands, tally.fl_points
        out.update(
            points=[x / h for x in totals],
            regular_hands=[(hands_done - x) / h for x in fl_hands],
            regular_points=[(t - x) / h for t, x in zip(totals, fl_points)],
            fl_hands=[x / h for x in fl_hands],
            fl_points=[x / h for x in fl_points],
            fl_stays=[x / h for x in tally.fl_stays],
        )
    return out
