"""The domino observer: the buffer every observation of Buki, Pulle and Austrian is gathered from.

The State (``envs/dominoes/state.py`` and each game's subclass) plays the rules and tells
its observer what happened (a deal starts, a tile is played, a seat passes or draws, a
deal ends, hidden tiles are redealt, and each game's own events); the observer writes
``pub`` (the public observation, absolute seats) and every seat's private block (``priv``)
with the helpers of ``encode``, so ``Game.observe`` is one gather. ``encode(view)`` is the
reference; the harness asserts the two agree. A game with its own tail events (Buki's bets and raises,
Pulle's buy-backs, Austrian's draws) subclasses :class:`DominoObserver` next to its State:
the observer, not the rules, knows which events change the tail and what it writes for them.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from parlor.envs.dominoes import encode as _encode
from parlor.envs.engine.layout import BoundViews, float_cells


class DominoObserver(BoundViews):
    """``buf`` = ``pub`` then every seat's private block; ``cells``: single-item writes
    through a memoryview (half the cost of numpy's)."""

    VIEWS = ("pub", "priv_flat", "priv", "cells")

    def __init__(self, size: int, n: int):
        self.size, self.n = size, n
        self.buf = np.zeros(size + n * _encode.PRIVATE, dtype=np.float32)
        self._bind()
        self.tail_dirty = True  # the tail needs a full refill (an event changed it)
        self.synced: tuple = ()  # what the cheap step sync last wrote (a game's own record)

    def _bind(self) -> None:
        buf = self.buf
        self.pub = buf[:self.size]
        self.priv_flat = buf[self.size:]
        self.priv = self.priv_flat.reshape(self.n, _encode.PRIVATE)
        self.cells = float_cells(buf)

    def copy(self) -> DominoObserver:
        new = object.__new__(type(self))
        new.__dict__.update(self.__getstate__())
        new.buf = self.buf.copy()
        new.synced = ()  # the step sync's record may be a mutable list: never share it
        new._bind()
        return new

    # ------------------------------------------------------------ events
    def deal_start(self, state: Any) -> None:
        _encode.sync_deal_start(self, state)
        self.tail_dirty = True

    def played(self, state: Any, p: int, action: int) -> None:
        _encode.sync_play(self, state, p, action)

    def passed(self, state: Any, p: int, drawn: list[int]) -> None:
        _encode.sync_pass(self, state, p, drawn)

    def redealt(self, state: Any) -> None:
        """Hidden tiles were redealt (``determinize``): every private block anew."""
        _encode.sync_private(self, state)

    def deal_ended(self) -> None:
        """The deal is over: its settlement changes the tail (chips, totals, deals won)."""
        self.tail_dirty = True

    step_sync = False  # whether the game's observer has a cheap per-step tail sync (step_tail)

    def sync_tail(self, state: Any) -> None:
        """Keep the game's tail of ``pub`` up to date: all of it after an event, else the cheap part."""
        if self.tail_dirty:
            tail = self.pub[_encode.CORE_SIZE:]
            tail[:] = 0.0
            state.game.fill_tail(tail, state, 0)
            self.tail_dirty = False
            self.synced = ()  # forget what the cheap step sync last wrote
        else:
            self.step_tail(state)

    def step_tail(self, state: Any) -> None:
        """Hook: tail entries that change on ordinary steps (set ``step_sync`` with it)."""
