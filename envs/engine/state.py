"""The plumbing every game's State shares: the base class :class:`RulesState`.

A game's State keeps only its rules; this module owns what every State does the same way
(the split OpenSpiel's python games make between ``apply_action`` and ``_apply_action``):

- **the trace** (``engine/trace.py``): :meth:`RulesState._begin` starts it with the
  generator and the stacked decks, :meth:`apply` appends every applied action, :meth:`clone`
  copies it, :meth:`_resample_bookkeeping` replaces it in a determinized copy;
- **rewards**: one shared read-only zero row (:func:`zero_rewards`) stands for "nothing
  earned" so most steps allocate nothing; the rules call :meth:`_earn` (the writable row of
  this step) or :meth:`_earn_row` (add a whole row), and :meth:`take_rewards` hands them out once;
- **terminal handling**: the rules call :meth:`_end`; ``is_terminal`` / ``is_truncated``
  read the flags it sets, and no action is accepted after it;
- **illegal ids**: :meth:`apply` accepts Python and numpy integers only and refuses every
  other value, and the rules refuse an illegal id with ``raise self._illegal(a)``: one
  message (``IllegalActionError``: the id, its meaning, the legal ids);
- **copies**: :meth:`clone` copies the generator, the trace and the pending rewards and asks
  the game for the rest (:meth:`_copy_rules`).

The contract for a game's State (docs/adding_a_game.md): call ``self._begin(game, rng,
decks)`` first in ``__init__``; implement ``_apply_action(a)`` (``a`` a plain ``int``; raise
``self._illegal(a)`` for an illegal id), ``legal_mask``, ``view``, ``_copy_rules``,
``determinize`` (call ``_resample_bookkeeping`` where the generator is reseeded),
``check_invariants`` and ``stats``. A State with ``__slots__`` lists :data:`SLOTS` in them.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

import numpy as np

from parlor.envs.engine.game import IllegalActionError
from parlor.envs.engine.trace import Trace

# the attributes this base keeps on every State (a State with __slots__ declares them)
SLOTS = ("game", "rng", "decks", "trace", "current_player", "_rewards", "_zero", "terminal", "truncated")


@cache
def zero_rewards(num_players: int) -> np.ndarray:
    """The shared read-only float64 row of zeros: the rewards of a step that paid nothing."""
    row = np.zeros(num_players, dtype=np.float64)
    row.flags.writeable = False
    return row


def copy_rng(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in ``rng``'s state (plays on identically). The bit generator
    is built from a fixed seed and then set, which skips reading OS entropy."""
    bits = type(rng.bit_generator)(0)
    bits.state = rng.bit_generator.state
    return np.random.Generator(bits)


def action_id(action: Any, legal: Iterable[int], describe: Any = None) -> int:
    """``action`` as a plain int: a Python or numpy integer (not a bool); anything else is
    refused with the one illegal-action message."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
        return int(action)
    raise IllegalActionError(None if action is None else -1, legal, describe)


class RulesState(ABC):
    """The base of every game's State: see the module docstring for what it owns."""

    # Empty: a subclass with __slots__ lists SLOTS, the others keep a __dict__. Built by a
    # call, not a literal: mypy takes a literal as the complete slot list and would refuse
    # writes of the attributes declared below, which live in the subclass.
    __slots__: tuple[str, ...] = tuple()

    game: Any
    rng: np.random.Generator
    decks: list[tuple[int, ...]]
    trace: Trace
    current_player: int | None
    _rewards: np.ndarray
    _zero: np.ndarray
    terminal: bool
    truncated: bool

    # ------------------------------------------------------------ the start
    def _begin(self, game: Any, rng: np.random.Generator, decks: Sequence[Sequence[int]] | None) -> None:
        """Set the plumbing of a new episode: game, generator, stacked decks, trace, no rewards."""
        self.game = game
        self.rng = rng
        self.decks = [tuple(d) for d in decks or ()]
        self.trace = Trace.start(rng, self.decks)
        self._rewards = self._zero = zero_rewards(game.num_players)
        self.terminal = self.truncated = False

    def _dealt(self, deck: Sequence[int]) -> None:
        """Record a deck dealt (stacked or shuffled) in the trace, in dealing order."""
        self.trace.dealt.append(tuple(deck))

    # ------------------------------------------------------------ actions
    def apply(self, action: int) -> None:
        """Play ``action`` for ``current_player``; ``IllegalActionError`` if it is not legal."""
        if type(action) is not int:
            action = action_id(action, np.flatnonzero(self.legal_mask()), self.game.action_name)
        if self.current_player is None:
            raise self._illegal(action)
        self._apply_action(action)
        self.trace.actions.append(action)

    @abstractmethod
    def _apply_action(self, action: int) -> None:
        """The rules: play ``action`` (a plain int) for ``current_player``, or raise
        ``self._illegal(action)``."""

    def _illegal(self, action: int) -> IllegalActionError:
        """The error for an illegal ``action`` (the rules raise it): one message for every game."""
        legal = np.flatnonzero(self.legal_mask()) if self.current_player is not None else ()
        return IllegalActionError(action, legal, self.game.action_name)

    @abstractmethod
    def legal_mask(self) -> np.ndarray:
        """bool[num_actions]: which action ids ``current_player`` may play."""

    # ------------------------------------------------------------ rewards and the end
    def _earn(self) -> np.ndarray:
        """The writable rewards row of this step (replacing the shared zero row on first use)."""
        if self._rewards is self._zero:
            self._rewards = np.zeros(self._zero.size, dtype=np.float64)
        return self._rewards

    def _earn_row(self, amounts: Any) -> None:
        """Add a whole row of rewards (one per seat) to what this step earned."""
        # added to the zero row too: 0.0 + x keeps every payment's value and turns a -0.0 into 0.0
        self._rewards = self._rewards + np.asarray(amounts, dtype=np.float64)

    def take_rewards(self) -> np.ndarray:
        """float[num_players] earned since the last call (then reset to zero); the shared
        read-only zero row when nothing was."""
        out = self._rewards
        self._rewards = self._zero
        return out

    def _end(self, truncated: bool = False) -> None:
        """The episode is over: by the rules, or cut off by a cap when ``truncated``."""
        self.terminal = not truncated
        self.truncated = truncated
        self.current_player = None

    def is_terminal(self) -> bool:
        return self.terminal

    def is_truncated(self) -> bool:
        return self.truncated

    # ------------------------------------------------------------ copies
    def clone(self) -> Any:
        """An independent copy, generator, trace and pending rewards included."""
        new = self._copy_rules()
        new.rng = copy_rng(self.rng)
        new.decks = list(self.decks)
        new.trace = self.trace.copy()
        if self._rewards is not self._zero:
            new._rewards = self._rewards.copy()
        return new

    @abstractmethod
    def _copy_rules(self) -> Any:
        """A copy whose mutable rule fields (and observation buffers) are its own; ``clone``
        copies the plumbing."""

    def _resample_bookkeeping(self, rng: np.random.Generator, decks: Sequence[tuple[int, ...]] = ()) -> None:
        """In a determinized copy: a generator seeded from ``rng`` for what comes later, the
        stacked decks the player may know (``decks``) and a trace that says it does not replay."""
        self.rng = np.random.default_rng(int(rng.integers(2**63)))
        self.decks = list(decks)
        self.trace = Trace.resampled()
