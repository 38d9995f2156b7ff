"""Drawing primitives shared by every game's picture (SVG text, no dependencies).

Each game's presenter (``engine/presenter.py``: ``render_svg(view) -> str``) composes these: a playing card
(rank and suit symbol in the suit's colour, written exactly as the card parser
reads it: ``T♠``, ``A♥*`` for a second-deck copy, ``Xx`` for a joker), a
Washizu (transparent) card, a face-down card, a domino tile with pips, a chip
stack, a seat panel whose border marks the seat to act, a caption and a legend.
The primitives return SVG fragments; :func:`document` wraps them in one
``<svg>`` of a fixed size. Nothing here uses ``<defs>`` or ids, so any number
of pictures can sit in one HTML page.

:func:`rasterize` turns a picture into an ``uint8[H, W, 3]`` array with the
optional ``pictures`` extra (resvg-py and Pillow), imported only when called.
"""
from __future__ import annotations

import io
import math
import re
from collections.abc import Iterable, Sequence
from fractions import Fraction
from xml.sax.saxutils import escape

import numpy as np

from parlor.envs.engine.cards import (
    COPY_SIZE,
    JOKER_BASE,
    RANK_CHARS,
    SUIT_SYMBOLS,
    format_card,
    rank_of,
    suit_of,
)

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
FELT, FELT_DARK, INK, PAPER = "#2f6b46", "#24563a", "#1d1d1d", "#fdfdf8"
GOLD = "#f2c230"
# a four-colour deck (clubs green, diamonds blue, hearts red, spades black): suits stay
# apart even in a small rgb_array frame
SUIT_COLOURS = ("#18812f", "#1f5fc4", "#cc1f2e", "#1d1d1d")
JOKER_COLOUR = "#7b2fa6"
WASHIZU_FILL, WASHIZU_EDGE = "#d9f3ff", "#0a84b8"
BACK_FILL, BACK_EDGE = "#27408b", "#9fb3e8"
CARD_W, CARD_H = 40, 56
TILE_H = 26  # a domino tile is 2 * TILE_H wide, TILE_H high


def num(x: float | Fraction) -> str:
    """A coordinate or amount without float noise (``12``, ``7.5``)."""
    return f"{float(x):g}"


def text(x: float, y: float, words: str, *, size: float = 13, fill: str = "#ffffff", anchor: str = "start",
         bold: bool = False) -> str:
    weight = ' font-weight="bold"' if bold else ""
    return (f'<text x="{num(x)}" y="{num(y)}" font-size="{num(size)}" fill="{fill}" text-anchor="{anchor}"'
            f'{weight}>{escape(words)}</text>')


def box(x: float, y: float, w: float, h: float, *, fill: str, stroke: str = "none", width: float = 1,
        radius: float = 4, dash: str | None = None, opacity: float = 1.0, kind: str = "") -> str:
    """A rounded rectangle; ``kind`` becomes its class (``card``, ``card-back``, ``tile``...),
    which names what it draws for readers of the SVG and for tests."""
    extra = (f' stroke-dasharray="{dash}"' if dash else "") + (f' opacity="{num(opacity)}"' if opacity < 1 else "")
    extra += f' class="{kind}"' if kind else ""
    return (f'<rect x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{num(h)}" rx="{num(radius)}" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="{num(width)}"{extra}/>')


def document(width: int, height: int, body: Iterable[str], title: str) -> str:
    """One standalone picture: the felt background, then ``body``; ``title`` is its tooltip."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="{FONT}">'
            f'<title>{escape(title)}</title>'
            + box(0, 0, width, height, fill=FELT, radius=0) + "".join(body) + "</svg>")


_SIZE = re.compile(r'<svg [^>]*?width="([0-9.]+)" height="([0-9.]+)"')


def grid(pictures: Sequence[str], title: str, columns: int = 2, gap: int = 8) -> str:
    """Pictures made by :func:`document` side by side, ``columns`` to a row (e.g. every
    seat's view of one position at a glance: a page scales the whole to its width instead
    of stacking full-size views that must be scrolled)."""
    sizes = [_size(p) for p in pictures]
    if not sizes:
        raise ValueError("grid() needs at least one picture")
    if columns < 1:
        raise ValueError(f"grid() columns must be >= 1, got {columns}")
    cell_w, cell_h = max(w for w, _ in sizes), max(h for _, h in sizes)
    body = []
    for i, picture in enumerate(pictures):
        row, col = divmod(i, columns)
        body.append(f'<g transform="translate({num(col * (cell_w + gap))},{num(row * (cell_h + gap))})">{picture}</g>')
    cols, rows = min(columns, len(pictures)), -(-len(pictures) // columns)
    return document(math.ceil(cols * (cell_w + gap) - gap), math.ceil(rows * (cell_h + gap) - gap), body, title)


def _size(picture: str) -> tuple[float, float]:
    m = _SIZE.match(picture)
    if m is None:
        raise ValueError("grid() takes pictures made by document(): an <svg> with width and height")
    return float(m[1]), float(m[2])


def caption(width: int, line: str, sub: str = "") -> str:
    """The header bar: what game and deal this is, whose turn, whose view."""
    out = [box(0, 0, width, 44 if sub else 28, fill=FELT_DARK, radius=0), text(10, 19, line, size=14, bold=True)]
    if sub:
        out.append(text(10, 37, sub, size=12, fill="#d8e8dc"))
    return "".join(out)


# ---------------------------------------------------------------- cards
def card(x: float, y: float, c: int, *, washizu: bool = False, scale: float = 1.0, dim: bool = False,
         highlight: bool = False) -> str:
    """A face-up card: its parser notation in the corner, the suit symbol large.

    A Washizu card is tinted glass-blue with a dashed edge and a ``W``; a joker is purple
    with a star; a second-deck copy keeps the ``*`` of its notation; ``highlight`` frames
    it in gold (the card an action is about), ``dim`` darkens it (out of play)."""
    w, h = CARD_W * scale, CARD_H * scale
    fill, edge, stroke_w, dash = (WASHIZU_FILL, WASHIZU_EDGE, 2.2, "4 2") if washizu else (PAPER, "#8a8a8a", 1, None)
    if highlight:
        edge, stroke_w = GOLD, 3
    kind = "card washizu" if washizu else ("card joker" if c >= JOKER_BASE else "card")
    out = [box(x, y, w, h, fill=fill, stroke=edge, width=stroke_w, radius=4 * scale, dash=dash, kind=kind)]
    if c >= JOKER_BASE:
        out.append(text(x + 4 * scale, y + 15 * scale, format_card(c), size=13 * scale, fill=JOKER_COLOUR, bold=True))
        out.append(text(x + w / 2, y + 46 * scale, "★", size=22 * scale, fill=JOKER_COLOUR, anchor="middle"))
    else:
        colour = SUIT_COLOURS[suit_of(c)]
        rank = RANK_CHARS[rank_of(c)] + ("*" if c >= COPY_SIZE else "")
        out.append(text(x + 4 * scale, y + 16 * scale, rank, size=15 * scale, fill=colour, bold=True))
        out.append(text(x + w / 2, y + 47 * scale, SUIT_SYMBOLS[suit_of(c)], size=26 * scale, fill=colour,
                        anchor="middle"))
    if washizu:
        out.append(text(x + w - 3 * scale, y + 12 * scale, "W", size=10 * scale, fill=WASHIZU_EDGE, anchor="end",
                        bold=True))
    if dim:
        out.append(box(x, y, w, h, fill="#000000", radius=4 * scale, opacity=0.2))
    return "".join(out)


def card_back(x: float, y: float, *, scale: float = 1.0) -> str:
    """A face-down card (identity unknown to the viewing seat)."""
    w, h = CARD_W * scale, CARD_H * scale
    inset = 4 * scale
    return (box(x, y, w, h, fill=BACK_FILL, stroke="#0f1f4d", radius=4 * scale, kind="card-back")
            + box(x + inset, y + inset, w - 2 * inset, h - 2 * inset, fill="none", stroke=BACK_EDGE, radius=2 * scale)
            + f'<path d="M{num(x + w / 2)} {num(y + 2 * inset)} L{num(x + w - 2 * inset)} {num(y + h / 2)} '
              f'L{num(x + w / 2)} {num(y + h - 2 * inset)} L{num(x + 2 * inset)} {num(y + h / 2)} Z" '
              f'fill="none" stroke="{BACK_EDGE}" stroke-width="{num(scale)}"/>')


def empty_slot(x: float, y: float, *, scale: float = 1.0) -> str:
    """Where a card may still go (an OFC row's free place)."""
    return box(x, y, CARD_W * scale, CARD_H * scale, fill="none", stroke="#a9c9b3", radius=4 * scale, dash="3 3",
               kind="free")


def card_row(x: float, y: float, cards: Sequence[int], *, washizu: Iterable[int] = (), scale: float = 1.0,
             gap: float = 4, dim: bool = False) -> str:
    marked = set(washizu)
    step = CARD_W * scale + gap
    return "".join(card(x + i * step, y, c, washizu=c in marked, scale=scale, dim=dim) for i, c in enumerate(cards))


def backs_row(x: float, y: float, count: int, *, scale: float = 1.0, gap: float = 4) -> str:
    step = CARD_W * scale + gap
    return "".join(card_back(x + i * step, y, scale=scale) for i in range(count))


def row_width(count: int, *, scale: float = 1.0, gap: float = 4) -> float:
    return 0.0 if count <= 0 else count * CARD_W * scale + (count - 1) * gap


# ---------------------------------------------------------------- dominoes
# pip places of one half on a 3 x 3 grid (row, column), for 0..9 pips
_PIPS: tuple[tuple[tuple[int, int], ...], ...] = (
    (),
    ((1, 1),),
    ((0, 0), (2, 2)),
    ((0, 0), (1, 1), (2, 2)),
    ((0, 0), (0, 2), (2, 0), (2, 2)),
    ((0, 0), (0, 2), (1, 1), (2, 0), (2, 2)),
    ((0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 2)),
    ((0, 0), (0, 2), (1, 0), (1, 1), (1, 2), (2, 0), (2, 2)),
    ((0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (2, 2)),
    tuple((r, c) for r in range(3) for c in range(3)),
)


def pips(x: float, y: float, count: int, size: float) -> str:
    """``count`` pips in the square half of a tile whose corner is (x, y)."""
    if not 0 <= count < len(_PIPS):
        raise ValueError(f"a tile half shows 0..{len(_PIPS) - 1} pips, not {count}")
    step, r = size / 3.4, size * 0.085
    off = (size - 2 * step) / 2
    return "".join(f'<circle cx="{num(x + off + col * step)}" cy="{num(y + off + row * step)}" r="{num(r)}" '
                   f'fill="{INK}"/>' for row, col in _PIPS[count])


def tile(x: float, y: float, a: int, b: int, *, size: float = TILE_H, highlight: bool = False) -> str:
    """A face-up domino lying flat: ``a`` pips on the left half, ``b`` on the right."""
    edge, width = (GOLD, 2.5) if highlight else ("#555555", 1)
    return (box(x, y, 2 * size, size, fill="#fbf6e6", stroke=edge, width=width, radius=size * 0.15,
                kind="tile end" if highlight else "tile")
            + f'<line x1="{num(x + size)}" y1="{num(y + 3)}" x2="{num(x + size)}" y2="{num(y + size - 3)}" '
              f'stroke="#777777" stroke-width="1"/>'
            + pips(x, y, a, size) + pips(x + size, y, b, size))


def tile_back(x: float, y: float, *, size: float = TILE_H) -> str:
    return box(x, y, size, 2 * size, fill="#3b3b3b", stroke="#bbbbbb", radius=size * 0.15, kind="tile-back")


# ---------------------------------------------------------------- chips and seats
def chips(x: float, y: float, amount: float | Fraction, label: str = "", *, colour: str = "#d23c3c") -> str:
    """A chip stack (one disc per chip, at most eight drawn) with the amount beside it;
    (x, y) is the bottom-left of the stack."""
    out = []
    for i in range(min(8, max(1, int(amount)) if amount > 0 else 0)):
        cy = y - 5 - i * 4
        out.append(f'<ellipse cx="{num(x + 10)}" cy="{num(cy)}" rx="10" ry="4" fill="{colour}" stroke="#ffffff" '
                   f'stroke-width="1"/>')
    if amount <= 0:
        out.append(f'<ellipse cx="{num(x + 10)}" cy="{num(y - 5)}" rx="10" ry="4" fill="none" stroke="#cfe3d5" '
                   f'stroke-dasharray="2 2"/>')
    words = f"{label} {num(amount)}" if label else num(amount)
    out.append(text(x + 25, y - 3, words, size=13, bold=True))
    return "".join(out)


def seat_panel(x: float, y: float, w: float, h: float, name: str, *, acting: bool, you: bool,
               note: str = "", faded: bool = False) -> str:
    """A seat's area: its name (``(you)`` for the viewing seat), a gold border and a
    ``▶ to act`` badge for the seat to act, greyed out when it sits out."""
    fill = "#3f3f3f" if faded else ("#2b5c3f" if not you else "#336e4b")
    out = [box(x, y, w, h, fill=fill, stroke=GOLD if acting else "#8fb39b", width=3 if acting else 1, radius=6)]
    label = name + (" (you)" if you else "")
    out.append(text(x + 8, y + 17, label, size=13, bold=True, fill=GOLD if acting else "#ffffff"))
    if acting:
        out.append(box(x + w - 74, y + 4, 68, 18, fill=GOLD, radius=9, kind="to-act")
                   + text(x + w - 40, y + 17, "▶ to act", size=12, fill=INK, anchor="middle", bold=True))
    if note:
        out.append(text(x + 8, y + 34, note, size=12, fill="#e4efe7"))
    return "".join(out)


def legend(x: float, y: float, items: Sequence[tuple[str, str]]) -> str:
    """A one-line key: each item is (a sample drawn by a primitive, its meaning)."""
    out, at = [], x
    for sample, words in items:
        out.append(f'<g class="legend" transform="translate({num(at)} {num(y)}) scale(0.5)">{sample}</g>')
        out.append(text(at + 24, y + 18, words, size=11, fill="#e4efe7"))
        at += 24 + 6.3 * len(words) + 16
    return "".join(out)


def card_legend(x: float, y: float, *, washizu: bool = False, jokers: bool = False, copies: bool = False) -> str:
    """The key to the card notation, the one the deck parser reads (``T♠`` = ``Ts``)."""
    items = [(card(0, 0, 8 * 4 + 3), "T♠ = ten of spades (type T♠ or Ts)")]
    if copies:
        items.append((card(0, 0, COPY_SIZE + 12 * 4 + 2), "A♥* = second-deck copy"))
    if jokers:
        items.append((card(0, 0, JOKER_BASE), "Xx, Xy = jokers (wild)"))
    if washizu:
        items.append((card(0, 0, 12 * 4 + 3, washizu=True), "W, dashed = Washizu: all seats see it"))
    return legend(x, y, items)


# ---------------------------------------------------------------- raster
PICTURES_EXTRA = "pip install 'parlor[pictures]'"


def check_pictures_extra() -> None:
    """ImportError in one line naming the extra when resvg-py or Pillow is missing."""
    try:
        import PIL.Image  # noqa: F401
        import resvg_py  # noqa: F401
    except ImportError as err:
        raise ImportError(f"pictures as pixels (render_mode='rgb_array') need the pictures extra "
                          f"({err.name} is missing): {PICTURES_EXTRA}") from None


def rasterize(svg: str) -> np.ndarray:
    """``uint8[H, W, 3]`` pixels of a picture (the ``pictures`` extra: resvg-py, Pillow)."""
    check_pictures_extra()
    import resvg_py
    from PIL import Image

    png = bytes(resvg_py.svg_to_bytes(svg_string=svg, background=FELT))
    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGB"), dtype=np.uint8)
