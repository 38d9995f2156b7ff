"""The Game / State contract every game implements, and the shared error types.

This module owns the protocol between a game (``envs/<game>/game.py`` and its
State) and everything above it: the PettingZoo adapter (``envs/aec.py``), agents
and training only talk to games through these two protocols, and every member is
declared here with its type: callers call them directly, never probe for them.
Advisors that are not rules (guards, risk estimators for training) are no part
of a game: they live with the agents (``agents/advisors.py``). Framework-free.
"""
from __future__ import annotations

import reprlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from parlor.envs.engine.trace import Trace


class IllegalActionError(ValueError):
    """An action that is not legal in the current state.

    The message names the action, what it means, and the legal actions, so a
    user can see at once what went wrong.
    """

    def __init__(self, action: int | None, legal: Iterable[int], describe: Callable[[int], str] | None = None):
        self.action = None if action is None else int(action)  # None: no action from the seat to act
        self.legal = [int(a) for a in legal]
        name = (lambda a: str(a)) if describe is None else (lambda a: f"{a} ({describe(a)})")
        if action is None:
            meaning = "no action, but this seat must act"
        else:
            meaning = describe(action) if describe is not None and _describable(action, describe) else "unknown"
        listed = ", ".join(name(a) for a in self.legal) or "none"
        super().__init__(f"illegal action {action} ({meaning}); legal actions: {listed}")

    def __reduce__(self) -> tuple[Any, ...]:
        # picklable (and copyable) with its message as written: errors travel back from worker
        # processes and Ray tasks, where the describing game is not at hand
        return _rebuild_illegal_action, (type(self), str(self), self.action, self.legal)


def _rebuild_illegal_action(cls: type[IllegalActionError], message: str, action: int, legal: list[int]) -> IllegalActionError:
    error = cls.__new__(cls)
    ValueError.__init__(error, message)
    error.action, error.legal = action, legal
    return error


def _describable(action: int, describe: Callable[[int], str]) -> bool:
    try:
        describe(action)
        return True
    except Exception:
        return False


class ConfigError(ValueError):
    """A bad option or config value; the message names the field and what is allowed.

    The one error type of user input: every file, option, command-line value and API
    argument a user hands parlor that is refused raises one (or a subclass: policy files,
    run folders, records), and ``parlor`` prints its one line and exits 2, no traceback."""


class MissingFileError(ConfigError, FileNotFoundError):
    """A file the user named is not there: a ConfigError that is still a FileNotFoundError."""


_SHOWN = reprlib.Repr()  # keyword arguments need Python 3.12: set the limits one by one
_SHOWN.maxlevel, _SHOWN.maxstring, _SHOWN.maxlong, _SHOWN.maxother = 2, 60, 40, 60
_SHOWN.maxlist = _SHOWN.maxtuple = _SHOWN.maxdict = _SHOWN.maxset = _SHOWN.maxfrozenset = 4
SHOWN_LENGTH = 100


def shown(value: Any) -> str:
    """``repr(value)`` cut short for an error message: two levels, four items a level, at most
    100 characters. Time and length stay bounded whatever the value (a YAML alias bomb's full
    repr grows without limit; a message quotes the value, it never expands it)."""
    text = _SHOWN.repr(value)
    return text if len(text) <= SHOWN_LENGTH else text[:SHOWN_LENGTH - 3] + "..."


@runtime_checkable
class State(Protocol):
    """One game in progress. Mutable; ``clone`` gives an independent copy."""

    current_player: int | None  # None once the episode is over
    rng: np.random.Generator  # the episode's one generator: every chance event draws from it
    # how the state came to be (engine/trace.py): what new_state got, the decks dealt and every
    # action applied; serialize_state and game records replay it
    trace: Trace

    def legal_mask(self) -> np.ndarray:
        """bool[num_actions]: True where the action is legal for ``current_player``."""

    def apply(self, action: int) -> None:
        """Play ``action`` for ``current_player``; raises ``IllegalActionError``."""

    def is_terminal(self) -> bool:
        """The episode ended by the rules."""

    def is_truncated(self) -> bool:
        """The episode was cut off by a cap (e.g. ``max_turns``), not by the rules."""

    def take_rewards(self) -> np.ndarray:
        """float[num_players] earned since the last call (then reset to zero)."""

    def view(self, player: int) -> Any:
        """Frozen dataclass: exactly what ``player`` knows now, nothing hidden."""

    def clone(self) -> State:
        """An independent deep copy, random generator included (plays on identically)."""

    def determinize(self, player: int, rng: np.random.Generator) -> State:
        """A copy where everything ``player`` cannot see is resampled consistently."""

    def check_invariants(self) -> None:
        """Raise AssertionError if conservation (cards, tiles, chips) is broken."""

    def stats(self) -> dict[str, list[float]]:
        """Statistics of the episode so far, each a list with one value per seat (e.g. OFC's
        ``foul`` rate); ``{}`` for a game that reports none. Evaluation averages them and
        reward shaping may pay them (``State.stats()`` in the env docstrings)."""


# The State type a Game makes and reads. A game's ``observe`` and ``serialize_state`` take its
# own State (e.g. ``OFCState``) and ``new_state`` returns it: a Game is generic in that type
# (invariant, as it goes in and comes out), so ``OFCGame`` is a ``Game[OFCState]``; callers
# that serve every game write ``Game`` (``Game[Any]``).
StateT = TypeVar("StateT", bound=State)


@runtime_checkable
class Game(Protocol[StateT]):
    """A game with fixed options: builds states and encodes views. Its presenter
    (``engine/presenter.py``, registered by the game's module) shows them.

    The data members are read-only properties: callers read them, and a game may set them as
    plain attributes of a narrower type (``observation_shape = (493,)``, ``max_deals = 1``)."""

    name: str  # the env id (e.g. "ofc_v0"): agents, advisors, records and policy files know it by this

    @property
    def config(self) -> Any:
        """Frozen dataclass, validated in __post_init__."""

    @property
    def num_players(self) -> int: ...

    @property
    def num_actions(self) -> int: ...

    @property
    def observation_shape(self) -> tuple[int, ...]: ...

    @property
    def observation_bounds(self) -> tuple[float, float]:
        """Every entry of encode() lies inside."""

    @property
    def observation_version(self) -> int | None:
        """The version of an optional observation block (e.g. OFC's ``features=True``), part of
        a trained policy's signature; None when the env's ``_vN`` says it all."""

    @property
    def max_deals(self) -> int | None:
        """The most deals (hands, games, rounds: what one stacked deck plays) an episode has,
        so the most decks ``new_state`` can use; None when the episode has no bound."""

    @property
    def stat_ratios(self) -> Mapping[str, tuple[str, str]]:
        """Rates evaluation reports besides the per-seat means of ``State.stats()``: name ->
        (numerator, denominator), both ``State.stats()`` entries, each rate the ratio of their
        sums over every episode an agent played (e.g. OFC's points per Fantasyland hand); {}
        for none."""

    @property
    def portable_options(self) -> tuple[str, ...]:
        """Options a trained policy may be loaded across (``agents.policy.load_policy``): they
        change neither the observation layout nor what the actions mean, only the course of an
        episode (e.g. OFC's num_hands); () for none."""

    def new_state(self, rng: np.random.Generator, decks: Sequence[Sequence[int]] | None = None) -> StateT:
        """A fresh episode. ``decks``: stacked decks (parsed), one per deal/hand in order."""

    def parse_deck(self, deck: str | Sequence[Any]) -> tuple[int, ...]:
        """Parse and validate one stacked deck; raise ValueError naming what is wrong."""

    def sample_deck(self, rng: np.random.Generator) -> tuple[int, ...]:
        """A random full deck (card or tile ids, in dealing order) as ``new_state`` accepts
        in ``decks``; evaluation pre-samples these to replay duplicate deals."""

    def encode(self, view: Any) -> np.ndarray:
        """float32[observation_shape] for a view."""

    def observe(self, state: StateT, player: int) -> np.ndarray:
        """``encode(state.view(player))``, equal entry for entry (the harness checks it); a game
        may keep it fast (buffers the state updates incrementally) or return exactly that."""

    def action_name(self, action: int) -> str:
        """Readable meaning of an action id, e.g. 'place next card on top' (error messages
        name actions with it; everything else shown to people comes from the game's
        presenter, ``engine/presenter.py``)."""

    def serialize_state(self, state: StateT) -> str:
        """``state`` as JSON text: its start and history (``engine/trace.py``, format
        ``parlor-state``); never pickle. Raises for a state made by ``determinize``."""

    def deserialize_state(self, text: str) -> StateT:
        """The state ``serialize_state`` wrote, replayed (random generator included), so play
        continues identically; ``ReplayError`` if the text does not re-simulate."""
