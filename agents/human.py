"""The human-play agent: decisions typed at a terminal (``parlor play`` seats it).

It shows its seat's view (``game.render``) and the legal actions with their
names, and takes an action id or (a unique prefix of) its name. Bad input gets a
message and a new prompt; ``?`` lists the actions again; ``q`` or the end of the
input raises :class:`Abandon`. Input and output are streams, so tests drive it
with scripted text.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from parlor.envs.engine.game import Game

QUIT_WORDS = ("q", "quit", "exit")
HELP_WORDS = ("?", "h", "help")


class Abandon(Exception):
    """The human quit or the input ended."""


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


class HumanAgent:
    """An Agent whose decisions come from a text stream."""

    def __init__(self, game: Game, stdin: TextIO, stdout: TextIO):
        self.game, self.stdin, self.stdout = game, stdin, stdout

    def reset(self, seed: int | None = None) -> None:
        pass

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def list_actions(self, legal: Sequence[int]) -> None:
        self.say("legal actions:")
        for a in legal:
            self.say(f"  {a:>4}: {self.game.action_name(a)}")

    def act(self, observation, action_mask, view, sample_world=None) -> int:
        legal = [int(a) for a in range(len(action_mask)) if action_mask[a]]
        self.say()
        self.say(self.game.render(view))
        self.list_actions(legal)
        while True:
            self.stdout.write("your action (number or name, ? for the list, q to quit): ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                raise Abandon("input ended")
            answer = line.strip()
            if _norm(answer) in QUIT_WORDS:
                raise Abandon("you quit")
            if _norm(answer) in HELP_WORDS:
                self.list_actions(legal)
                continue
            action, problem = self.parse(answer, legal)
            if action is not None:
                return action
            self.say(problem)

    def parse(self, answer: str, legal: Sequence[int]) -> tuple[int | None, str]:
        """(action, "") for a legal answer, else (None, a message saying what is wrong)."""
        if not answer:
            return None, "please type an action number or name from the list"
        if answer.lstrip("-").isdigit():
            a = int(answer)
            if a in legal:
                return a, ""
            if 0 <= a < self.game.num_actions:
                return None, f"action {a} ({self.game.action_name(a)}) is not legal now; choose one of the listed numbers"
            return None, f"there is no action {a}; choose one of the listed numbers"
        want = _norm(answer)
        names = {a: _norm(self.game.action_name(a)) for a in legal}
        exact = [a for a, n in names.items() if n == want]
        if len(exact) == 1:
            return exact[0], ""
        prefix = [a for a, n in names.items() if n.startswith(want)]
        if len(prefix) == 1:
            return prefix[0], ""
        if len(prefix) > 1:
            shown = "; ".join(f"{a}: {self.game.action_name(a)}" for a in prefix[:8])
            return None, f"{answer!r} matches several actions ({shown}); be more precise or type the number"
        return None, f"{answer!r} is not a legal action now; type a number from the list (? shows it again)"
