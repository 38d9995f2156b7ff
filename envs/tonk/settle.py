"""Tonk settlement (docs/rules.md §5.7-§5.10): who pays whom, in whole stakes.

Each function is pure: counts and seats in, ``(net, winners, reason)`` out,
where ``net[p]`` is the stakes seat ``p`` wins (+) or pays (-). Every result
is zero-sum.
"""
from __future__ import annotations

from collections.abc import Sequence

Outcome = tuple[list[int], tuple[int, ...], str]


def _pay(net: list[int], src: int, dst: int, amount: int) -> None:
    net[src] -= amount
    net[dst] += amount


def paid_by_each(n: int, winner: int, amount: int, reason: str) -> Outcome:
    """The winner receives ``amount`` from every other player."""
    net = [0] * n
    for p in range(n):
        if p != winner:
            _pay(net, p, winner, amount)
    return net, (winner,), reason


def draw(n: int, reason: str) -> Outcome:
    return [0] * n, (), reason


def tonk_out(n: int, winner: int) -> Outcome:
    """Hand emptied by laying and hitting: 2 from each (texas: the same double prize)."""
    return paid_by_each(n, winner, 2, "tonk")


def went_out(n: int, winner: int) -> Outcome:
    """Last card discarded (or a tonk that failed ``tonk_needs_six``): 1 from each."""
    return paid_by_each(n, winner, 1, "out")


def lowest_wins(counts: Sequence[int], reason: str) -> Outcome:
    """Stock exhausted: a sole lowest count receives 1 from each; tied lowest draw."""
    low = min(counts)
    lowest = [p for p, c in enumerate(counts) if c == low]
    if len(lowest) > 1:
        return draw(len(counts), "draw_" + reason)
    return paid_by_each(len(counts), lowest[0], 1, reason)


def drop(counts: Sequence[int], dropper: int, texas: bool = False) -> Outcome:
    """Settle a drop.

    - The dropper has the strictly lowest count: 1 from each.
    - Someone is lower (caught): the dropper pays 1 to each player with a lower
      count (texas: 2 to the lowest); every other player pays 1 to each lowest.
    - The dropper ties for lowest: he pays 2 to each other lowest, who win and
      also receive 1 from every player who is neither the dropper nor lowest.
      Decision (three or more tied): each other lowest is paid like that.
    """
    n = len(counts)
    mine = counts[dropper]
    low = min(counts)
    lowest = [p for p in range(n) if counts[p] == low and p != dropper]
    net = [0] * n
    if not lowest:
        return paid_by_each(n, dropper, 1, "drop_won")
    if mine == low:
        for w in lowest:
            _pay(net, dropper, w, 2)
            for p in range(n):
                if p != dropper and p not in lowest:
                    _pay(net, p, w, 1)
        return net, tuple(lowest), "drop_tie"
    for p in range(n):
        if p != dropper and counts[p] < mine:
            _pay(net, dropper, p, 2 if texas and counts[p] == low else 1)
    for w in lowest:
        for p in range(n):
            if p != dropper and p not in lowest:
                _pay(net, p, w, 1)
    return net, tuple(lowest), "drop_caught"


def naturals(n: int, prizes: Sequence[int]) -> Outcome | None:
    """Instant wins at the deal: ``prizes[p]`` > 0 for each natural. None: play on.

    One natural: paid its prize by each other player. Two or more: a draw
    (docs/rules.md §5.8: two 49/50 hands draw; Decision: any two naturals, high or low).
    """
    winners = [p for p in range(n) if prizes[p] > 0]
    if not winners:
        return None
    if len(winners) > 1:
        return draw(n, "draw_naturals")
    return paid_by_each(n, winners[0], prizes[winners[0]], "natural")


def natural_prize(count: int, natural: str, low_natural: str, texas: bool, at_deal: bool = True) -> int:
    """Stakes a dealt count wins at once (0: no instant win).

    ``at_deal`` False asks about a 49 declared on the first turn
    (``natural="50_auto_49_turn"``).
    """
    if not at_deal:
        return (1 if texas else 2) if natural == "50_auto_49_turn" and count == 49 else 0
    if natural != "none" and count == 50:
        return 2
    if natural == "49_50" and count == 49:
        return 1 if texas else 2
    if low_natural == "9_triple_13_double" and count <= 9:
        return 3
    if low_natural != "none" and count <= 13:
        return 2
    return 0


def side_pot(joined: Sequence[bool | None], shown: Sequence[int]) -> Outcome:
    """Joiners each put 1 stake; the highest spade shown takes the pot (``joined[p]`` None:
    ``p`` was not asked, which counts as passing).

    Decision: a lone joiner or no spade among the joiners returns the pot (nothing paid).
    """
    n = len(joined)
    net = [0] * n
    players = [p for p in range(n) if joined[p]]
    shown_by = [(shown[p], p) for p in players if shown[p] >= 0]
    if len(players) < 2 or not shown_by:
        return net, (), "side_pot_returned"
    winner = max(shown_by)[1]
    for p in players:
        if p != winner:
            _pay(net, p, winner, 1)
    return net, (winner,), "side_pot"
