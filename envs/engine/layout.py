"""Observation layouts declared once, as named pieces laid end to end.

A game declares its observation vector (or one block of it, such as a seat's row) as a
:class:`Layout`: a list of ``(name, size)`` pieces in order. The offsets follow from the
sizes, so no game computes ``a + b + c`` by hand, and the encoder (``encode(view)``, the
reference), the observer that keeps the fast ``observe`` buffers and the documentation all
read the same declaration. Pure Python, no numpy: a layout is built once per game config.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the layout itself stays pure Python; only float_cells takes an array
    import numpy as np
    from numpy.typing import NDArray


class Layout:
    """Named pieces laid end to end: ``start(name)``, ``end(name)``, ``layout[name]`` (a
    slice), ``slices`` (every piece by name, in order), ``size`` (the whole). Never changed
    once built (a game shares one per config)."""

    __slots__ = ("_pieces", "_starts", "size", "slices")

    def __init__(self, pieces: Sequence[tuple[str, int]]):
        starts: dict[str, tuple[int, int]] = {}
        at = 0
        for piece in pieces:
            if (not isinstance(piece, tuple) or len(piece) != 2 or not isinstance(piece[0], str)
                    or type(piece[1]) is not int):
                raise TypeError(f"a layout piece is a (name, size) pair, got {piece!r}")
            name, size = piece
            if size < 0:
                raise ValueError(f"layout piece {name!r} has size {size}; sizes are 0 or more")
            if name in starts:
                raise ValueError(f"layout piece {name!r} is declared twice")
            starts[name] = (at, size)
            at += size
        self._pieces = tuple(pieces)
        self._starts = starts
        self.size = at
        self.slices = {name: slice(start, start + size) for name, (start, size) in starts.items()}

    def _piece(self, name: str) -> tuple[int, int]:
        try:
            return self._starts[name]
        except KeyError:
            raise KeyError(f"no layout piece {name!r}; pieces: {', '.join(self._starts)}") from None

    def start(self, name: str) -> int:
        """The offset of piece ``name``'s first entry."""
        return self._piece(name)[0]

    def end(self, name: str) -> int:
        """The offset just past piece ``name``."""
        start, size = self._piece(name)
        return start + size

    def width(self, name: str) -> int:
        return self._piece(name)[1]

    def __getitem__(self, name: str) -> slice:
        start, size = self._piece(name)
        return slice(start, start + size)

    def __iter__(self) -> Iterator[str]:
        return iter(self._starts)

    def __len__(self) -> int:
        return len(self._starts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and self._pieces == other._pieces

    def __hash__(self) -> int:
        return hash(self._pieces)

    def __repr__(self) -> str:
        return f"Layout({', '.join(f'{n}={s}' for n, s in self._pieces)}; size={self.size})"

    def table(self) -> str:
        """A markdown table of the pieces (offsets and sizes), for docs and docstrings."""
        rows = [f"| `[{self.start(n)}:{self.end(n)}]` | {n} |" for n in self._starts]
        return "\n".join(["| slice | piece |", "|---|---|", *rows])


def float_cells(array: NDArray[np.float32]) -> memoryview[float]:
    """A flat memoryview of a C-contiguous float32 ``array`` for single-entry writes.

    Observers write single entries through a memoryview (half the cost of numpy item
    assignment). ``memoryview(array)`` types as ``memoryview[int]``, which rejects float
    writes; ``cast("f")`` gives the same view typed ``memoryview[float]``. It goes through
    bytes because a memoryview cannot cast between two non-byte formats.
    """
    if array.dtype.char != "f" or not array.flags.c_contiguous:
        raise ValueError(f"float_cells needs a C-contiguous float32 array, got {array.dtype} "
                         f"(c_contiguous={array.flags.c_contiguous})")
    return array.data.cast("B").cast("f")


class BoundViews(ABC):
    """An observer whose attributes named in ``VIEWS`` are views over its own buffers (numpy
    views, :func:`float_cells`). Memoryviews do not pickle, and pickle and deepcopy would bring
    a numpy view back as an array of its own, so the views are left out of the pickled state
    and ``_bind`` makes them again over the buffers that came back."""

    VIEWS: tuple[str, ...] = ()

    @abstractmethod
    def _bind(self) -> None:
        """(Re)make every attribute named in ``VIEWS`` over the buffers."""

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in self.VIEWS}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind()
