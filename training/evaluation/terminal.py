"""Text from files made safe to print: the one helper every terminal output uses for strings
it did not write itself (agent labels, record tags, names in results and records).

A record or results file is data from anywhere: a label holding ``ESC ] 0 ;`` retitles the
terminal, ``ESC ] 52`` writes the clipboard, ``ESC [ 2 J`` clears the screen, and a
right-to-left override reorders what follows. :func:`safe_text` shows every character that
is not printable (Unicode categories Cc, Cf, Zl, Zp and the other separators but the plain
space) as its Python escape (``\\x1b``, ``\\u202e``), so the reader sees what the file holds
and the terminal obeys none of it. HTML pages escape with :func:`html.escape` and draw
captions with ``textContent``; they use this helper too, so both show the same text.
"""
from __future__ import annotations


def _escape(ch: str) -> str:
    return ch.encode("unicode_escape").decode("ascii")


def safe_text(value: object) -> str:
    """``str(value)`` with every non-printable character (but the space) written as its escape."""
    text = str(value)
    if text.isprintable():  # the common case: one C-level check
        return text
    return "".join(ch if ch.isprintable() or ch == " " else _escape(ch) for ch in text)
