"""``parlor play`` through the real command line with scripted stdin: moves typed as words,
unique starts of words, cards (``Kc`` or ``K♣``) and tiles; every move shown names its card
or tile; each finished hand or deal is explained."""
from __future__ import annotations

import io
import re
import subprocess
import sys
from collections.abc import Callable

import pytest

from parlor.cli import main

ASCII = str.maketrans("♣♦♥♠", "cdhs")
CARD = r"(?:[2-9TJQKA][♣♦♥♠]\*?|X[xyzwvuts])"
Answer = Callable[[list[tuple[int, str]]], str]


class Typist(io.StringIO):
    """stdin that answers each prompt from the legal actions listed last on stdout."""

    def __init__(self, out: io.StringIO, answer: Answer):
        super().__init__()
        self.out, self.answer, self.typed = out, answer, []

    def readline(self, *args) -> str:
        listing = self.out.getvalue().rsplit("legal actions:", 1)[1]
        labels = [(int(a), text) for a, text in re.findall(r"^\s+(\d+): (.*)$", listing, re.M)]
        self.typed.append(self.answer(labels))
        return self.typed[-1] + "\n"


def play_cli(monkeypatch, argv: list[str], answer: Answer) -> tuple[str, list[str]]:
    out = io.StringIO()
    typist = Typist(out, answer)
    monkeypatch.setattr(sys, "stdin", typist)
    monkeypatch.setattr(sys, "stdout", out)
    assert main(["play", *argv]) == 0
    return out.getvalue(), typist.typed


def row_word_start(labels: list[tuple[int, str]]) -> str:
    """OFC: the first three letters of the row (or 'dis' for the discard) of the first action."""
    return labels[0][1].split()[-1][:3] if labels[0][1].startswith("place") else "dis"


def in_ascii(labels: list[tuple[int, str]]) -> str:
    return labels[0][1].translate(ASCII)


def test_ofc_by_unique_starts_of_row_names_with_every_card_named_and_the_showdown_explained(monkeypatch) -> None:
    text, typed = play_cli(monkeypatch, ["ofc_v0", "--vs", "heuristic", "--seed", "3"], row_word_start)
    assert set(typed) <= {"top", "mid", "bot"} and "mid" in typed
    mine = re.findall(rf"^player_0 \(you\) places {CARD} (?:on top|in middle|on bottom)$", text, re.M)
    theirs = re.findall(rf"^player_1 \(heuristic\) places {CARD} (?:on top|in middle|on bottom)$", text, re.M)
    assert len(mine) == len(theirs) == 13
    assert "is not a legal action" not in text and "matches several" not in text
    assert "showdown of hand 1/1:" in text and re.search(r"^  points: P0 [+-]\d+, P1 [+-]\d+$", text, re.M)
    assert re.search(r"\((?:high card|pair|two pair|three of a kind|straight|flush|full house)[^)]*\)", text)


def test_pineapple_discards_are_named_to_their_owner_only(monkeypatch) -> None:
    def discard_when_owed(labels):
        return next((text.translate(ASCII) for _, text in labels if text.startswith("discard")), in_ascii(labels))

    text, _ = play_cli(monkeypatch, ["ofc_v0", "--option", "variant=pineapple", "--seed", "1"], discard_when_owed)
    assert len(re.findall(rf"^player_0 \(you\) discards {CARD} \(face down\)$", text, re.M)) == 4
    assert len(re.findall(r"^player_1 \(heuristic\) discards a card face down$", text, re.M)) == 4


def test_washizu_discards_typed_as_cards_are_shown_as_cards_with_the_legend(monkeypatch) -> None:
    def two_cards_then_call(labels):
        for _, label in labels:
            m = re.fullmatch(r"discard (\S+) (\S+) and draw 2", label)
            if m:
                return f"{m[2]} {m[1]}".translate(ASCII).replace("[", "").replace("]", "")  # any order, letters
        return "call" if any(label == "call" for _, label in labels) else in_ascii(labels)

    text, typed = play_cli(monkeypatch, ["washizu_poker_v0", "--option", "num_players=3", "--option", "num_games=2",
                                         "--seed", "2"], two_cards_then_call)
    assert "legend: [K♣] = a Washizu card (transparent: every seat sees it); Xx, Xy = jokers (wild)" in text
    thrown = re.findall(rf"^player_0 \(you\) discards (\[?{CARD}\]?) (\[?{CARD}\]?) and draws 2: .+$", text, re.M)
    cards_typed = [t for t in typed if re.fullmatch(r"\S\S\*? \S\S\*?", t)]
    assert thrown and len(thrown) == len(cards_typed)
    for (a, b), answer in zip(thrown, cards_typed):
        assert sorted(answer.split()) == sorted(c.strip("[]").translate(ASCII) for c in (a, b))
    assert re.search(r"^player_[12] \(heuristic\) discards \d cards?", text, re.M)
    assert re.search(r"^game 1/2: (showdown|P\d takes the pot)", text, re.M)


@pytest.mark.parametrize("env_name,options", [("tonk_v0", []), ("buki_v0", []), ("pulle_v0", ["max_deals=3"]),
                                              ("austrian_dominoes_v0", ["mode=draw"]), ("buffalo_bill_v0", [])])
def test_every_move_is_told_and_the_end_explained(monkeypatch, env_name: str, options: list[str]) -> None:
    argv = [env_name, "--seed", "4"] + [x for o in options for x in ("--option", o)]
    text, typed = play_cli(monkeypatch, argv, in_ascii)
    assert "is not a legal action" not in text and "matches several" not in text
    moves = re.findall(r"^player_\d \((?:you|heuristic)\) (.+)$", text, re.M)
    assert moves, text[:400]
    if env_name == "tonk_v0":
        assert re.search(r"^hand 1/1: .+\n  counts: P0 \d+, P1 \d+, P2 \d+\n  stakes", text, re.M)
    elif env_name == "buffalo_bill_v0":
        assert any(re.match(rf"scores (?:{CARD} ){{4}}{CARD} as .+ \(line \d+\): \d+", m) for m in moves)
        assert re.search(r"^game over: totals P0 \d+, P1 \d+; .+ \(reward: .+\)$", text, re.M)
    else:
        assert any(re.fullmatch(r"(?:leads|plays) \d-\d.*", m) for m in moves)
        assert re.search(r"^deal 1/\d+: .+\n(  pips left: .+\n)?  paid: ", text, re.M)


def test_the_console_reads_the_same_answers_from_real_stdin(monkeypatch) -> None:
    argv = ["ofc_v0", "--vs", "heuristic", "--seed", "3"]
    text, typed = play_cli(monkeypatch, argv, row_word_start)
    monkeypatch.undo()
    done = subprocess.run([sys.executable, "-m", "parlor.training", "play", *argv], input="\n".join(typed) + "\n",
                          capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout == text
