"""Determinization of a domino deal (``State.determinize``): the hidden tiles redealt.

What a seat cannot see (the other hands, the stock) is redealt at random, keeping
every hand's size, every void the line of play revealed (``line.Deal.void``) and,
in a block game's first deal, the lead by the heaviest tile: a matching of tiles
to hands (Kuhn's augmenting paths) under those constraints. numpy only.
"""
from __future__ import annotations

import numpy as np

from parlor.envs.dominoes.line import HEAVINESS, N_TILES, TILES, Deal


def resample_hidden(deal: Deal, player: int, rng: np.random.Generator) -> None:
    """Redeal in ``deal`` what ``player`` cannot see (other hands, the stock) from ``rng``, keeping
    hand sizes, every known void and (block games) the heaviest-tile lead consistent.
    Depends only on public information, ``player``'s hand and ``rng``."""
    others = [s for s in range(deal.n) if s != player and deal.active[s]]
    pool = sorted([int(t) for s in others for t in np.flatnonzero(deal.hands[s])] + deal.stock)
    seats = list(others)
    caps = [deal.counts[s] for s in others]
    allowed = [~(deal.void[s] @ TILES.has) for s in others]
    if deal.draws and deal.current in others and not deal.over:
        # he has just drawn a fitting tile he must now play: one tile fits, the rest do not
        caps[others.index(deal.current)] -= 1
        seats.append(deal.current)
        caps.append(1)
        allowed.append(TILES.has[deal.ends[0]] | TILES.has[deal.ends[1]])
    seats.append(-1)
    caps.append(len(deal.stock))
    allowed.append(np.ones(N_TILES, dtype=bool))
    shuffled = [pool[i] for i in rng.permutation(len(pool))]
    for limit, fixed in _lead_options(deal, player, others, shuffled):
        allow = [a & (HEAVINESS < limit) for a in allowed[:-1]] + [allowed[-1]]
        if fixed is not None:
            if not allowed[fixed[1]][fixed[0]]:
                continue
            allow[fixed[1]] = allow[fixed[1]].copy()
            allow[fixed[1]][fixed[0]] = True
        groups = _match(shuffled, caps, allow, fixed)
        if groups is not None:
            break
    else:
        raise AssertionError("no consistent redeal of the hidden tiles exists")
    for s in others:
        deal.hands[s] = False
    for seat, tiles in zip(seats[:-1], groups[:-1]):
        deal.hands[seat, tiles] = True
    deal.hands_changed()
    deal.stock = groups[-1]


def _lead_options(deal: Deal, player: int, others: list[int], shuffled: list[int]):
    """(heaviness limit for hidden hand tiles, tile fixed in a group) to try in turn.

    First deal of a block game: the leader was dealt the heaviest tile of all hands, so
    every other dealt tile is lighter than the leader's heaviest, which is tried among
    the candidates in random order. Otherwise no limit."""
    unlimited = int(HEAVINESS.max()) + 1
    if not deal.by_weight or deal.draw_mode:
        yield unlimited, None
        return
    if deal.leader == player:
        mine = np.flatnonzero(deal.hands[player] | deal.played[player])
        yield int(HEAVINESS[mine].max()), None
        return
    lead_g = others.index(deal.leader)
    known = deal.played.copy()
    known[player] |= deal.hands[player]
    known[deal.leader] = False
    floor = int(HEAVINESS[np.flatnonzero(known.any(axis=0))].max(initial=-1))
    led = np.flatnonzero(deal.played[deal.leader])
    floor = max(floor, int(HEAVINESS[led].max(initial=-1)) - 1)
    in_pool = set(shuffled)
    for t in list(shuffled) + led.tolist():
        if HEAVINESS[t] > floor:
            yield int(HEAVINESS[t]), ((t, lead_g) if t in in_pool else None)
    # the true deal is always among the candidates above


def _match(tiles: list[int], caps: list[int], allow: list[np.ndarray],
           fixed: tuple[int, int] | None) -> list[list[int]] | None:
    """Kuhn's augmenting paths: tiles (in the given random order) into capacity groups,
    group g only taking tiles ``allow[g]``; ``fixed`` = (tile, group) placed first."""
    members: list[list[int]] = [[] for _ in caps]
    rest = list(tiles)
    locked = None
    if fixed is not None:
        locked, g = fixed
        if caps[g] == 0:
            return None
        members[g].append(locked)
        rest.remove(locked)

    def place(tile: int, seen: set[int]) -> bool:
        for g in range(len(caps)):
            if g in seen or not allow[g][tile]:
                continue
            seen.add(g)
            if len(members[g]) < caps[g]:
                members[g].append(tile)
                return True
            for i, other in enumerate(members[g]):
                if other != locked and place(other, seen):
                    members[g][i] = tile
                    return True
        return False

    for tile in rest:
        if not place(tile, set()):
            return None
    return members
