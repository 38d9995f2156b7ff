"""``parlor replay``: step through a game record in the terminal, or write it as a web page.

    parlor replay runs/eval/<run>/records.jsonl --list              # the episodes of a file
    parlor replay runs/eval/<run>/records.jsonl --episode 3          # Enter, b, q or a step number
    parlor replay runs/eval/<run>/records.jsonl --worst random --html worst.html --start end

A file holds game records (JSON lines, :mod:`parlor.envs.records`), as ``parlor eval
--record`` and ``parlor play --record`` write them. ``--episode K`` picks the K-th
(0-based), ``--worst AGENT`` the episode where that agent's seat scored least (and shows
that seat's view). Every frame is re-simulated from the record and checked on the way
(:mod:`parlor.training.evaluation.replay` builds the frames); ``--seat`` chooses whose
view each frame shows, ``--start`` where it opens (a step number or ``end``; a page also
opens where its address says, ``worst.html#frame=26``). The last frame sums up the whole
game, deal by deal. Names from the file are printed with control characters escaped
(:func:`~parlor.training.evaluation.terminal.safe_text`). Input and output are streams, so
tests drive it with scripted text.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from parlor.envs.engine.game import ConfigError
from parlor.envs.engine.words import count
from parlor.envs.records import Record

KEYS_HELP = "Enter = next, b = back, q = quit, a number = go to that step"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a game records file (JSON lines), e.g. runs/eval/<run>/records.jsonl")
    parser.add_argument("--episode", type=int, help="which record of the file, 0-based (default 0)")
    parser.add_argument("--worst", metavar="AGENT", help="the episode where AGENT's seat got the lowest reward")
    parser.add_argument("--seat", help="whose view each frame shows: acting (the seat to act; default), all, "
                        "or a seat number (--worst: that agent's seat)")
    parser.add_argument("--html", metavar="OUT.html", help="write one self-contained page of pictures instead")
    parser.add_argument("--list", action="store_true", help="list the file's episodes and exit")
    parser.add_argument("--start", default="0", metavar="N|end",
                        help="open at step N (negative: from the end) or at the end, e.g. to see the result first "
                        "(default 0, the deal); a page also opens where its address says: OUT.html#frame=N")


def worst_episode(records: Sequence[Record], agent: str) -> tuple[int, int]:
    """(episode, seat) where a seat labelled ``agent`` has the lowest total reward (the first on ties)."""
    from parlor.training.evaluation.terminal import safe_text

    found = [(r.rewards[s], k, s) for k, r in enumerate(records) if r.agents
             for s, label in enumerate(r.agents) if label == agent]
    if not found:
        labels = sorted({label for r in records if r.agents for label in r.agents})
        allowed = ", ".join(map(safe_text, labels)) if labels else "none (these records carry no agent labels)"
        raise ConfigError(f"--worst {agent!r}: no seat of that agent in the file; agents: {allowed}")
    _, episode, seat = min(found)
    return episode, seat


def listing(records: Sequence[Record]) -> list[str]:
    from parlor.training.evaluation.replay import who
    from parlor.training.evaluation.terminal import safe_text

    lines = []
    for k, r in enumerate(records):
        end = "" if r.terminal else (" (cut off)" if r.truncated else " (unfinished)")
        tags = "".join(f" {safe_text(key)} {safe_text(value)}" for key, value in r.tags.items())
        rewards = ", ".join(f"{who(r, p)} {x:+g}" for p, x in enumerate(r.rewards))
        lines.append(f"{k:4d}: {count(len(r.steps), 'step')}{end}; {rewards}{tags}")
    return lines


def step_through(frames: Sequence[str], stdin: TextIO, stdout: TextIO, start: int = 0) -> None:
    """Show ``frames[start]``, then move on the reader's commands until q, the end or the input ends."""
    def say(text: str = "") -> None:
        print(text, file=stdout, flush=True)

    last, at = len(frames) - 1, start
    say(frames[at])
    while True:
        stdout.write(f"[step {at}/{last}] {KEYS_HELP}: ")
        stdout.flush()
        line = stdin.readline()
        if not line:
            say("\ninput ended")
            return
        command = line.strip().lower()
        if command == "q":
            return
        if command == "":
            if at == last:
                say("end of the replay")
                return
            at += 1
        elif command == "b":
            if at == 0:
                say("already at the deal (step 0)")
                continue
            at -= 1
        elif command.isdigit() and int(command) <= last:
            at = int(command)
        else:
            say(f"{command!r}: not a command; {KEYS_HELP} (0..{last})")
            continue
        say()
        say(frames[at])


def run(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    from parlor.envs.engine.trace import ReplayError
    from parlor.envs.records import read_records
    from parlor.training.evaluation import replay
    from parlor.training.evaluation.html import start_frame

    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    try:
        records = read_records(args.file)
        if args.list:
            print("\n".join(listing(records)), file=stdout)
            return 0
        if args.worst is not None and args.episode is not None:
            raise ConfigError("give either --episode or --worst, not both")
        episode, seat = (worst_episode(records, args.worst) if args.worst is not None
                         else (0 if args.episode is None else args.episode, "acting"))
        if not 0 <= episode < len(records):
            raise ConfigError(f"--episode {episode} is out of range; {args.file} holds episodes 0..{len(records) - 1}")
        record = records[episode]
        if args.seat is not None:
            seat = replay.parse_seat(args.seat, record.num_players)
        start = start_frame(args.start, len(record.steps) + 1, "--start")
        if args.html:
            path = replay.write_html(record, args.html, seat, number=episode, start=start)
            print(f"wrote {path}: {len(record.steps) + 1} frames of {replay.title(record, episode)}, "
                  f"opening at frame {start} (another: {path}#frame=N)", file=stdout)
            return 0
        frames = replay.text_frames(record, seat)
    except (OSError, ConfigError) as exc:  # ReplayError is a ConfigError: the step is named
        kind = "does not replay" if isinstance(exc, ReplayError) else "error"
        print(f"parlor replay: {kind}: {exc}", file=sys.stderr)
        return 2
    print(replay.title(record, episode), file=stdout)
    step_through(frames, stdin, stdout, start)
    return 0
