"""The base Game of the three domino games: sizes, the observation's seat permutations,
stacked decks, and the encode and action-name hooks every game shares.

Each game (``buki``, ``pulle``, ``austrian``) subclasses it with its config, its
``state_class``, its tail of the observation (``fill_tail``) and its action names; its
presenter (``presenter.py`` beside it) shows its views.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import numpy as np

from parlor.envs.dominoes import encode as _encode
from parlor.envs.dominoes.line import N_TILES, TILES
from parlor.envs.dominoes.view import DominoView
from parlor.envs.engine.decks import check_deck, check_decks
from parlor.envs.engine.trace import Serializable

if TYPE_CHECKING:
    from parlor.envs.dominoes.state import DominoState

DECK = tuple(range(N_TILES))  # the tile ids every deal is dealt from
S = TypeVar("S", bound="DominoState")  # the game's State
V = TypeVar("V", bound=DominoView)  # the game's View


class DominoGame(Serializable, Generic[S, V]):
    """Shared Game behaviour; subclasses set ``name``, ``config``, sizes, ``state_class`` and
    ``max_deals``, and name their State and View types (``DominoGame[BukiState, BukiView]``)."""

    name: str
    num_players: int
    num_actions: int
    observation_shape: tuple[int, ...]
    observation_bounds = (0.0, 1.0)
    observation_version: int | None = None  # the env's _vN versions the observation (Buki's feature block included)
    stat_ratios: Mapping[str, tuple[str, str]] = {}  # no rates of State.stats() entries
    portable_options: tuple[str, ...] = ()  # a policy fits only the options it was trained with
    max_deals: int | None
    state_class: ClassVar[type]
    tail_size: int  # a class default; Buki's grows per config with its feature block
    tail_blocks: ClassVar[list[tuple[int, int]]]  # (offset in the tail, width) of per-seat blocks

    def __init__(self, config: Any, num_players: int, num_actions: int):
        self.config = config
        self.num_players = num_players
        self.num_actions = num_actions
        size = _encode.CORE_SIZE + self.tail_size
        self.observation_shape = (size,)
        blocks = _encode.CORE_BLOCKS + [(_encode.CORE_SIZE + off, w) for off, w in self.tail_blocks]
        self.perms = _encode.seat_permutations(size, num_players, blocks)
        # the same gathers from the observer's ``buf`` (pub then the private rows): the seat's
        # private block comes with the one gather instead of a second copy
        self.buf_perms = _encode.buffer_permutations(self.perms)
        # offsets in ``buf`` of each seat's private block, and of every other seat's
        self.priv_rows = [size + _encode.PRIVATE * q for q in range(num_players)]
        self.other_rows = [[r for q, r in enumerate(self.priv_rows) if q != p] for p in range(num_players)]
        # ``observe(state, player)`` equals ``encode(state.view(player))``: the fast path gathers
        # from the observer's buffer. A partial, not a method, saves a Python frame per call; a
        # game that appends to it (Buki's feature block) sets its own.
        self.observe: Callable[[S, int], np.ndarray] = partial(_encode.observe, self)

    def new_state(self, rng: np.random.Generator, decks: Sequence[Sequence[int]] | None = None) -> S:
        return self.state_class(self, rng, check_decks(decks, DECK, name=TILES.format_tile, unit="tiles"))

    def parse_deck(self, deck: str | Sequence[Any]) -> tuple[int, ...]:
        """All 36 tiles of the double-eight set without doubles, in dealing order."""
        return check_deck(TILES.parse(deck), DECK, name=TILES.format_tile, unit="tiles")

    def sample_deck(self, rng: np.random.Generator) -> tuple[int, ...]:
        """A random order of all 36 tiles, as ``new_state`` accepts in ``decks``."""
        return tuple(rng.permutation(N_TILES).tolist())

    def encode(self, view: V) -> np.ndarray:
        return _encode.encode(self, view)

    def action_name(self, action: int) -> str:
        return _encode.action_name(self, action)
