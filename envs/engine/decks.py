"""Stacked decks: the one check every game runs on the cards or tiles it is given to deal.

A stacked deck is the game's deck in dealing order, handed in from outside the game:
``reset(options={"deck": ...})``, a game record, a saved state (``deserialize_state``),
evaluation's duplicate deals and what ``--resume`` re-simulates all reach
``Game.new_state(rng, decks)``, and every game's ``new_state`` passes them through
:func:`check_decks` before it deals a card. A deck must be a sub-multiset of the game's
deck (its jokers and extra deck included: no id the deck lacks, no id more often than the
deck holds it) and long enough (every game deals hands and stock from the whole deck, so
by default the whole deck). Anything else raises a
:class:`~parlor.envs.engine.game.ConfigError` naming the deck and the id, instead of an
``IndexError`` deep in a deal or a game dealt from 52 aces of spades.

Ids are plain integers (numpy integers too); bools, floats and strings are refused, not cast.
"""
from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from parlor.envs.engine.game import ConfigError, shown

Namer = Callable[[int], str]
_PLAIN_INT = {int}


@functools.lru_cache(maxsize=64)
def _holdings(full_deck: tuple[int, ...]) -> tuple[Counter, list[int], str]:
    """How often the deck holds each id, its ids sorted (both read only: the cache shares
    them), and those ids as runs in words (``"0..51, 104"``)."""
    ids = sorted(full_deck)
    runs = []
    for _, run in itertools.groupby(enumerate(sorted(set(ids))), lambda pair: pair[1] - pair[0]):
        ids_in_run = [c for _, c in run]
        runs.append(f"{ids_in_run[0]}..{ids_in_run[-1]}" if len(ids_in_run) > 1 else str(ids_in_run[0]))
    return Counter(ids), ids, ", ".join(runs)


def _label(c: int, name: Namer) -> str:
    """``name(c)``, or the id where the namer has no word for it (an id past every deck)."""
    try:
        return name(c)
    except (ValueError, IndexError, KeyError):
        return f"id {c}"


def _times(k: int) -> str:
    return {1: "once", 2: "twice"}.get(k, f"{k} times")


def _ids(deck: Any, where: str) -> tuple[int, ...]:
    """The deck's ids as plain ints; a ConfigError for anything that is not a list of integers."""
    if isinstance(deck, np.ndarray):
        if deck.ndim != 1 or not np.issubdtype(deck.dtype, np.integer):
            raise ConfigError(f"{where} must be a list of integer ids, got an array of {deck.dtype} "
                              f"with shape {deck.shape}")
        return tuple(deck.tolist())
    if not isinstance(deck, (list, tuple)):
        raise ConfigError(f"{where} must be a list of ids (integers), got {type(deck).__name__}")
    for i, c in enumerate(deck):
        if isinstance(c, bool) or not isinstance(c, (int, np.integer)):
            raise ConfigError(f"{where}[{i}]={shown(c)} is not an id; ids are integers")
    return tuple(int(c) for c in deck)


def check_deck(deck: Any, full_deck: Sequence[int], *, where: str = "stacked deck", name: Namer = str,
               unit: str = "cards", min_length: int | None = None) -> tuple[int, ...]:
    """``deck`` as a tuple of ids, checked against ``full_deck``: integers only, a sub-multiset
    of ``full_deck``, at least ``min_length`` long (default: the whole deck, so a permutation).
    ``name`` words an id (``format_card``), ``unit`` what the ids are ("cards", "tiles");
    ``where`` names the deck in the error."""
    holds, full_ids, ranges = _holdings(tuple(full_deck))
    if (type(deck) in (tuple, list) and len(deck) == len(full_ids) and set(map(type, deck)) == _PLAIN_INT
            and sorted(deck) == full_ids):
        return tuple(deck)  # the common case (every deal of an evaluation): plain ints, a permutation
    ids = _ids(deck, where)
    need = len(full_ids) if min_length is None else min_length
    for c, k in Counter(ids).items():
        if c not in holds:
            raise ConfigError(f"{where}: {_label(c, name)} is not in this game's deck (its ids: {ranges})")
        if k > holds[c]:
            raise ConfigError(f"{where}: {_label(c, name)} appears {_times(k)}; this game's deck holds it "
                              f"{_times(holds[c])}")
    if len(ids) < need:
        missing = (holds - Counter(ids)).elements()
        example = " ".join(name(c) for c, _ in zip(missing, range(10)))
        wanted = f"is this game's whole deck of {need}" if need == len(full_ids) else f"holds at least {need}"
        raise ConfigError(f"{where} has {len(ids)} {unit}; a stacked deck {wanted} {unit} (missing e.g. {example})")
    return ids


def check_decks(decks: Any, full_deck: Sequence[int], *, name: Namer = str, unit: str = "cards",
                where: str = "decks") -> list[tuple[int, ...]]:
    """The stacked decks ``new_state`` got, one per deal in order, each checked by
    :func:`check_deck`. ``None`` is no decks; decks past the episode's last deal are checked
    too, and never dealt."""
    if decks is None:
        return []
    if isinstance(decks, np.ndarray) and decks.ndim == 2:
        decks = list(decks)
    if not isinstance(decks, (list, tuple)):
        raise ConfigError(f"{where} must be a list of stacked decks (one per deal), got {type(decks).__name__}")
    return [check_deck(d, full_deck, where=f"{where}[{i}]", name=name, unit=unit) for i, d in enumerate(decks)]
