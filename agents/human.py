"""The human-play agent: decisions typed at a terminal (``parlor play`` seats it).

It shows its seat's view (its presenter's ``render``) and the legal actions, each named in
context by ``move_name`` (the cards or tiles it moves: ``place K♣ in
middle``, ``discard K♣ 7♦ and draw 2``, ``play 3-5 on the left end``), and takes:

- an action id (``2``);
- any words of one action's label, each word or a unique start of it, in any order
  (``middle``, ``mid``, ``stand pat``, ``raise 2``, ``3-5 left``);
- cards and tiles in the one notation of the screen, which the parsers read
  (``K♣``, also typed ``Kc``; ``A♥*`` a second-deck copy, ``Xx`` a joker; a tile
  ``3-5`` or ``5-3``): an answer that names cards or tiles picks the action that
  moves exactly those (``Kc 7d`` = ``discard K♣ 7♦ and draw 2``).

Input that does not come from a terminal is echoed after the prompt (a scripted
session reads like a typed one). Bad or ambiguous input gets a message naming the
candidates and a new prompt. A forced move (the only legal action) is played without
asking, and said. ``?`` lists the actions again; ``q`` or the end of the input raises
:class:`Abandon`. Input and output are streams, so tests drive it with scripted text.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any, TextIO

from parlor.envs.engine.cards import JOKER_CHARS, SUIT_SYMBOLS, parse_card
from parlor.envs.engine.game import Game
from parlor.envs.engine.presenter import presenter_for

QUIT_WORDS = ("q", "quit", "exit")
HELP_WORDS = ("?", "h", "help")
PROMPT = "your action (number, name or part of it{notation}; ? lists, q quits): "
MAX_SHOWN = 8  # candidates named in an "ambiguous" message

_TILE = re.compile(r"^\[?(\d+)\s*[-|]\s*(\d+)\]?$")
_JOKER = re.compile(f"^X[{JOKER_CHARS}]$")
_PUNCTUATION = str.maketrans({ch: " " for ch in "(),;:'\""})


class Abandon(Exception):
    """The human quit or the input ended."""


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


class Tokens:
    """A text split into the cards, the tiles and the plain words it names."""

    def __init__(self, text: str, *, typed: bool, cards: bool = True):
        """``typed``: a player's answer (cards may be typed as ``Kc``; only where ``cards``);
        else a label written by a game (cards always carry a suit symbol or are jokers)."""
        self.cards: Counter[int] = Counter()
        self.tiles: Counter[tuple[int, int]] = Counter()
        self.words: list[str] = []
        for raw in text.translate(_PUNCTUATION).split():
            tile = _TILE.match(raw)
            bare = raw.strip("[]")  # Washizu cards are shown in brackets
            may_be_card = cards if typed else any(s in bare for s in SUIT_SYMBOLS) or bool(_JOKER.match(bare))
            card = _card(bare) if may_be_card else None
            if tile:
                a, b = int(tile[1]), int(tile[2])
                self.tiles[(min(a, b), max(a, b))] += 1
            elif card is not None:
                self.cards[card] += 1
            else:
                self.words.append(raw.lower())


def _card(text: str) -> int | None:
    try:
        return parse_card(text)
    except ValueError:
        return None


def _words_fit(wanted: Sequence[str], words: list[str]) -> bool:
    """Every wanted word starts a different word of ``words`` (any order)."""
    if not wanted:
        return True
    first, rest = wanted[0], wanted[1:]
    for i, w in enumerate(words):
        if w.startswith(first) and _words_fit(rest, words[:i] + words[i + 1:]):
            return True
    return False


def fits(answer: Tokens, label: Tokens) -> bool:
    """The answer names this label: the same cards and tiles (when it names any) and words
    that each start a word of the label."""
    if answer.cards and answer.cards != label.cards:
        return False
    if answer.tiles and answer.tiles != label.tiles:
        return False
    if not (answer.cards or answer.tiles or answer.words):
        return False
    return _words_fit(answer.words, label.words)


def prompt(labels: dict[int, str]) -> str:
    """The prompt, with a reminder of the card or tile notation when the moves name any."""
    parsed = [Tokens(text, typed=False) for text in labels.values()]
    notation = "; cards as K♣ or Kc" if any(t.cards for t in parsed) else ""
    notation += "; tiles as 3-5" if any(t.tiles for t in parsed) else ""
    return PROMPT.format(notation=notation)


def match_action(answer: str, labels: dict[int, str]) -> tuple[int | None, list[int]]:
    """(action, []) when ``answer`` names one of ``labels`` (action -> label), else
    (None, the candidates it fits: several = ambiguous, none = no match)."""
    want = _norm(answer)
    exact = [a for a, text in labels.items() if _norm(text) == want]
    if len(exact) == 1:
        return exact[0], []
    parsed = {a: Tokens(text, typed=False) for a, text in labels.items()}
    uses_cards = any(t.cards for t in parsed.values())
    typed = Tokens(answer, typed=True, cards=uses_cards)
    found = [a for a, tokens in parsed.items() if fits(typed, tokens)]
    if len(found) == 1:
        return found[0], []
    return None, found


class HumanAgent:
    """An Agent whose decisions come from a text stream."""

    def __init__(self, game: Game, stdin: TextIO, stdout: TextIO):
        self.game, self.stdin, self.stdout = game, stdin, stdout
        self.presenter = presenter_for(game)

    def reset(self, seed: int | None = None) -> None:
        pass

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def labels(self, legal: Sequence[int], view: Any = None) -> dict[int, str]:
        """Each legal action's label in context (its plain name without a view)."""
        if view is None:
            return {a: self.presenter.action_name(a) for a in legal}
        return {a: self.presenter.move_name(view, a) for a in legal}

    def list_actions(self, labels: dict[int, str]) -> None:
        self.say("legal actions:")
        for a, text in labels.items():
            self.say(f"  {a:>4}: {text}")

    def act(self, observation, action_mask, view, sample_world=None) -> int:
        legal = [int(a) for a in range(len(action_mask)) if action_mask[a]]
        labels = self.labels(legal, view)
        if len(legal) == 1:  # nothing to decide: play it, and say so
            self.say(f"your only legal move: {labels[legal[0]]} (played for you)")
            return legal[0]
        self.say()
        self.say(self.presenter.render(view))
        self.list_actions(labels)
        asking = prompt(labels)
        while True:
            self.stdout.write(asking)
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                raise Abandon("input ended")
            if not self.stdin.isatty():  # scripted input: echo it, so the transcript reads like a session
                self.stdout.write(line if line.endswith("\n") else line + "\n")
            answer = line.strip()
            if _norm(answer) in QUIT_WORDS:
                raise Abandon("you quit")
            if _norm(answer) in HELP_WORDS:
                self.list_actions(labels)
                continue
            action, problem = self.parse(answer, legal, view)
            if action is not None:
                return action
            self.say(problem)

    def parse(self, answer: str, legal: Sequence[int], view: Any = None) -> tuple[int | None, str]:
        """(action, "") for an answer that names one legal action, else (None, a message saying
        what is wrong). With ``view`` the answer is matched against the labels in context."""
        if not answer:
            return None, "please type an action number or name from the list"
        if answer.lstrip("-").isdigit():
            a = int(answer)
            if a in legal:
                return a, ""
            if 0 <= a < self.game.num_actions:
                return None, f"action {a} ({self.presenter.action_name(a)}) is not legal now; choose one of the listed numbers"
            return None, f"there is no action {a}; choose one of the listed numbers"
        labels = self.labels(legal, view)
        action, candidates = match_action(answer, labels)
        if action is None and not candidates and view is not None:  # the plain names are understood too
            action, candidates = match_action(answer, self.labels(legal))
        if action is not None:
            return action, ""
        if candidates:
            shown = "; ".join(f"{a}: {labels[a]}" for a in candidates[:MAX_SHOWN])
            more = f" and {len(candidates) - MAX_SHOWN} more" if len(candidates) > MAX_SHOWN else ""
            return None, f"{answer!r} matches several actions ({shown}{more}); say more or type the number"
        return None, f"{answer!r} is not a legal action now; type a number from the list (? shows it again)"
