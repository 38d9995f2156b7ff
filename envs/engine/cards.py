"""Playing cards: integer ids, decks, and text parsing/formatting.

Card ids (shared by every card game):

| ids        | meaning                                                        |
|------------|----------------------------------------------------------------|
| 0..51      | standard card, ``id = rank * 4 + suit``; rank 0=2 .. 12=A, suit 0=c 1=d 2=h 3=s |
| 52..103    | the second copy of card ``id - 52`` (``double104``; written with a trailing ``*``) |
| 104..111   | jokers, written ``Xx``, ``Xy``, ``Xz``, ``Xw``, ``Xv``, ``Xu``, ``Xt``, ``Xs`` |

Notation, the same on screen, in action names and in what the parser reads: rank
``23456789TJQKA`` and a suit symbol ``♣♦♥♠`` (``K♣``), ``*`` after a second-deck copy
(``A♥*``), ``Xx``..``Xs`` for jokers. The parser (stacked decks, typed moves) also reads
the ASCII letters ``cdhs`` (``Kc``), lower-case ranks and ``10``; ``format_card(c,
symbols=False)`` writes the letters for libraries that need them (treys, pokerkit).

Numpy lookup tables ``RANK``, ``SUIT``, ``BASE`` (indexed by id) make hot
paths vectorizable; jokers have rank and suit -1.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from parlor.envs.engine.decks import check_deck

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
SUIT_SYMBOLS = "♣♦♥♠"
JOKER_CHARS = "xyzwvuts"
NUM_RANKS = 13
NUM_SUITS = 4
COPY_SIZE = 52
JOKER_BASE = 104
MAX_JOKERS = len(JOKER_CHARS)
NUM_IDS = JOKER_BASE + MAX_JOKERS
RANK_TEN, RANK_JACK, RANK_QUEEN, RANK_KING, RANK_ACE = 8, 9, 10, 11, 12


def card(rank: int, suit: int, copy: int = 0) -> int:
    return copy * COPY_SIZE + rank * NUM_SUITS + suit


def joker(index: int = 0) -> int:
    if not 0 <= index < MAX_JOKERS:
        raise ValueError(f"joker index {index} out of range 0..{MAX_JOKERS - 1}")
    return JOKER_BASE + index


def is_joker(c: int) -> bool:
    return c >= JOKER_BASE


def base_of(c: int) -> int:
    """The standard id 0..51 of a card (its copy forgotten); -1 for a joker."""
    return -1 if c >= JOKER_BASE else c % COPY_SIZE


def rank_of(c: int) -> int:
    return -1 if c >= JOKER_BASE else (c % COPY_SIZE) // NUM_SUITS


def suit_of(c: int) -> int:
    return -1 if c >= JOKER_BASE else c % NUM_SUITS


def copy_of(c: int) -> int:
    return 0 if c >= JOKER_BASE else c // COPY_SIZE


_ids = np.arange(NUM_IDS)
RANK = np.where(_ids < JOKER_BASE, (_ids % COPY_SIZE) // NUM_SUITS, -1).astype(np.int8)
SUIT = np.where(_ids < JOKER_BASE, _ids % NUM_SUITS, -1).astype(np.int8)
BASE = np.where(_ids < JOKER_BASE, _ids % COPY_SIZE, -1).astype(np.int16)
IS_JOKER = _ids >= JOKER_BASE
del _ids


# ---------------------------------------------------------------- decks
def standard52() -> tuple[int, ...]:
    return tuple(range(52))


def short32() -> tuple[int, ...]:
    """7, 8, 9, T, J, Q, K, A of each suit."""
    return tuple(c for c in range(52) if rank_of(c) >= 5)


def double104() -> tuple[int, ...]:
    """Two full decks; the copies are distinguishable ids (second copy 52..103)."""
    return tuple(range(104))


def with_jokers(deck: Iterable[int], jokers: int) -> tuple[int, ...]:
    if not 0 <= jokers <= MAX_JOKERS:
        raise ValueError(f"jokers={jokers} out of range 0..{MAX_JOKERS}")
    return tuple(deck) + tuple(JOKER_BASE + i for i in range(jokers))


DECKS = {"standard52": standard52, "short32": short32, "double104": double104}


def make_deck(name: str = "standard52", jokers: int = 0) -> tuple[int, ...]:
    if name not in DECKS:
        raise ValueError(f"unknown deck {name!r}; allowed: {', '.join(DECKS)}")
    return with_jokers(DECKS[name](), jokers)


# ---------------------------------------------------------------- text
def format_card(c: int, symbols: bool = False) -> str:
    if not 0 <= c < NUM_IDS:
        raise ValueError(f"card id {c} out of range 0..{NUM_IDS - 1}")
    if c >= JOKER_BASE:
        return "X" + JOKER_CHARS[c - JOKER_BASE]
    suits = SUIT_SYMBOLS if symbols else SUIT_CHARS
    text = RANK_CHARS[rank_of(c)] + suits[suit_of(c)]
    return text + "*" if c >= COPY_SIZE else text


def format_cards(cards: Iterable[int], symbols: bool = False) -> str:
    return " ".join(format_card(int(c), symbols) for c in cards)


_SUIT_LOOKUP = {ch: i for i, ch in enumerate(SUIT_CHARS)} | {ch: i for i, ch in enumerate(SUIT_SYMBOLS)}
_SUIT_LOOKUP |= {ch.upper(): i for i, ch in enumerate(SUIT_CHARS)}
_RANK_LOOKUP = {ch: i for i, ch in enumerate(RANK_CHARS)} | {ch.lower(): i for i, ch in enumerate(RANK_CHARS)}


def parse_card(token: str) -> int:
    """``"As"``, ``"A♠"``, ``"10s"``, ``"As*"`` (second copy) or ``"Xx"`` (joker)."""
    text = token.strip()
    copy = 0
    if text.endswith("*"):
        copy, text = 1, text[:-1]
    if len(text) == 2 and text[0] in "Xx" and text[1] in JOKER_CHARS and not copy:
        return JOKER_BASE + JOKER_CHARS.index(text[1])
    if text.startswith("10"):
        text = "T" + text[2:]
    if len(text) != 2 or text[0] not in _RANK_LOOKUP or text[1] not in _SUIT_LOOKUP:
        raise ValueError(
            f"bad card {token!r}: expected rank {RANK_CHARS} + suit {SUIT_CHARS} (or {SUIT_SYMBOLS}), "
            f"optional '*' for the second deck copy, or a joker Xx/Xy"
        )
    return card(_RANK_LOOKUP[text[0]], _SUIT_LOOKUP[text[1]], copy)


def parse_cards(text: str | Sequence[str | int]) -> tuple[int, ...]:
    """Parse ``"As Kd Xx"`` (or a list of tokens / ids) into card ids."""
    if isinstance(text, str):
        tokens = text.replace(",", " ").split()
    elif isinstance(text, (list, tuple)) or (isinstance(text, np.ndarray) and text.ndim == 1):
        tokens = list(text)
    else:
        raise ValueError(f"bad cards {text!r}: expected text like 'As Kd Xx' or a list of cards or ids")
    out = []
    for tok in tokens:
        if isinstance(tok, (int, np.integer)) and not isinstance(tok, bool):
            if not 0 <= tok < NUM_IDS:
                raise ValueError(f"bad card id {tok}: allowed 0..{NUM_IDS - 1}")
            out.append(int(tok))
        elif isinstance(tok, str):
            out.append(parse_card(tok))
        else:
            raise ValueError(f"bad card {tok!r}: expected a card text like 'As' or an id")
    return tuple(out)


def card_name(c: int) -> str:
    """A card id in the on-screen notation (``A♠``, ``A♠*``, ``Xx``): how deck errors name it."""
    return format_card(c, symbols=True)


def validate_deck(cards: Sequence[int], full_deck: Sequence[int], *, allow_partial: bool = False) -> tuple[int, ...]:
    """A stacked deck checked against the game's deck (``engine.decks.check_deck``): no unknown
    card, none more often than the deck holds it, and (unless ``allow_partial``) the whole
    deck. Returns the ids; raises ConfigError (a ValueError) naming the card."""
    return check_deck(cards, full_deck, name=card_name, min_length=0 if allow_partial else None)


def parse_stacked_deck(deck: str | Sequence[str | int], full_deck: Sequence[int]) -> tuple[int, ...]:
    """A stacked deck (text or ids) that must be exactly ``full_deck`` in some order."""
    return validate_deck(parse_cards(deck), full_deck)


def complete_deck(prefix: Sequence[int], full_deck: Sequence[int], rng: np.random.Generator) -> tuple[int, ...]:
    """A partial stacked deck followed by the remaining cards in random order."""
    validate_deck(prefix, full_deck, allow_partial=True)
    rest = [c for c in full_deck if c not in set(prefix)]
    rng.shuffle(rest)
    return tuple(prefix) + tuple(rest)


def shuffled(deck: Sequence[int], rng: np.random.Generator) -> list[int]:
    out = list(deck)
    rng.shuffle(out)
    return out
