"""Counted nouns in the games' text (renders, table talk): ``count(1, "card")`` is ``"1 card"``,
``count(3, "card")`` ``"3 cards"``, so no text says "(1 cards)" or hedges with "card(s)"."""
from __future__ import annotations


def noun(n: int, singular: str, plural: str | None = None) -> str:
    """``singular`` for exactly one, else ``plural`` (default: ``singular`` + "s")."""
    return singular if n == 1 else (plural or singular + "s")


def count(n: int, singular: str, plural: str | None = None) -> str:
    """``n`` and its noun: ``count(1, "tile")`` -> ``"1 tile"``, ``count(0, "tile")`` -> ``"0 tiles"``."""
    return f"{n} {noun(n, singular, plural)}"
