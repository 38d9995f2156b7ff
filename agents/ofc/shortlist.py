"""A network's shortlist of a turn's placements: the few a planner then compares.

A policy plays OFC card by card, so its probability of a whole placement of the turn's
pending cards (one candidate of ``envs.ofc_outlook.rollouts.plans_of``) is the product of
its probabilities of each card's destination, each read from the observation of the board
with the cards before it placed. :func:`network_shortlist` finds the ``size`` most probable
candidates by a beam search of width ``size`` over those cards (exact when ``size`` covers
every partial placement; with ``size`` 1 it is the network's own greedy play). The
planner (``OFCExpert.values(view, among)``) then scores only these: the opening's 232 candidates
cost the expert about half a second, four of them a few milliseconds
(docs/experiments/ofc_distilled.md).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np

from parlor.envs.ofc.view import OFCView, frozen_board
from parlor.envs.ofc_outlook.rollouts import DISCARD, place

# views -> the network's action logits for each ([len(views), actions])
Prior = Callable[[Sequence[OFCView]], np.ndarray]


def placed(view: OFCView, dest: int) -> OFCView:
    """``view`` after its first pending card went to ``dest`` (a row, or the discards)."""
    card, rows = view.pending[0], list(view.rows)
    rows[view.player] = frozen_board(place(view.own_rows, (card,), (dest,)))
    discarded = dest == DISCARD
    return dataclasses.replace(view, rows=tuple(rows), pending=view.pending[1:],
                               discards=view.discards + ((card,) if discarded else ()),
                               discards_owed=view.discards_owed - discarded)


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """log(softmax(logits)) of one row of the prior's logits, stable for large ones."""
    top = float(logits.max())
    return logits - (top + float(np.log(np.exp(logits - top).sum())))


def network_shortlist(view: OFCView, dests: Sequence[tuple[int, ...]], prior: Prior, size: int) -> list[int]:
    """Indices into ``dests`` (every candidate placement of the view's pending cards) of the
    ``size`` most probable under ``prior``, most probable first (ties: the lower destinations first).
    A card's legal destinations are those the candidates sharing its prefix take, so the
    probabilities are the network's masked ones."""
    if size < 1:
        raise ValueError(f"a shortlist holds at least one candidate, got size {size!r}")
    index = {tuple(d): i for i, d in enumerate(dests)}
    beam: list[tuple[tuple[int, ...], OFCView, float]] = [((), view, 0.0)]
    for depth in range(len(view.pending)):
        logits = prior([v for _, v, _ in beam])
        children = []
        for (prefix, v, score), row in zip(beam, logits):
            legal = sorted({d[depth] for d in index if d[:depth] == prefix})
            for dest, logp in zip(legal, log_softmax(np.asarray(row, dtype=np.float64)[legal])):
                children.append((prefix + (dest,), v, score + float(logp)))
        children.sort(key=lambda c: (-c[2], c[0]))
        last = depth == len(view.pending) - 1
        beam = [(p, v if last else placed(v, p[-1]), s) for p, v, s in children[:size]]
    return [index[p] for p, _, _ in beam]
