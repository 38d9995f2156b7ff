"""Showing a game record: the frames of ``parlor replay``, as text or as an HTML page of pictures.

Frame ``k`` is the position after ``k`` steps: frame 0 is the deal, then one frame per
step, so an episode of N steps has N + 1 frames. Each frame is drawn as one seat sees it
(the game's View, shown by the game's presenter: text with ``render``, a picture with ``render_svg``):

- ``seat="acting"`` (the default): the seat to act there (the last mover once the episode
  is over), so each decision is shown with exactly what its player knew;
- a seat number: that seat in every frame (e.g. the loser's, to see why he lost);
- ``"all"``: every seat's view (a replay knows everything): in text one under the other, in
  pictures side by side, two or three to a row, which the page scales to fit one screen.

The caption names the step that led to the frame (who, the move with its cards or tile,
what it paid), who acts next, whose view the picture is, and at the end the result and the
statistics. The frame where a hand or deal has just finished also says why it paid what it
did (the presenter's ``explain``: OFC's rows, hand names, royalties, fouls and points; the poker
showdown; who went out or blocked), so the picture of a lost game shows why it was lost.
Where the game has already dealt the next deal on that frame, the picture is the finished
deal's final position (``state.ended_view``: the domino games, OFC, Washizu, Tonk). The last frame ends with
the whole game deal by deal (:func:`summary`: what each deal or hand paid and why, then the
totals). Agent labels from the record are shown through
:func:`~parlor.training.evaluation.terminal.safe_text`.
The page (:mod:`.html`) is one self-contained file. No torch.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parlor.envs.engine.game import ConfigError
from parlor.envs.engine.presenter import presenter_for, svg_renderer
from parlor.envs.engine.words import count
from parlor.envs.records import Record, game_of, positions
from parlor.training.evaluation.terminal import safe_text

SeatChoice = int | str  # a seat number, "acting" or "all"
SEAT_WORDS = ("acting", "all")


@dataclass(frozen=True)
class Shot:
    """One frame: its caption and the views it shows (seat, view)."""

    index: int
    caption: str
    views: tuple[tuple[int, Any], ...]


def parse_seat(text: str, num_players: int) -> SeatChoice:
    """``--seat``: a seat number, ``acting`` or ``all``; ValueError naming the allowed values."""
    if text in SEAT_WORDS:
        return text
    if text.isdigit() and int(text) < num_players:
        return int(text)
    raise ConfigError(f"--seat {text!r}: allowed values are acting, all or a seat 0..{num_players - 1}")


def who(record: Record, seat: int) -> str:
    """``player_1 (random)``: the seat and, when the record has them, its agent's label."""
    return f"player_{seat}" + (f" ({safe_text(record.agents[seat])})" if record.agents else "")


def _amounts(values: Sequence[float], sign: str = "+") -> str:
    return ", ".join(f"P{p} {v:{sign}g}" for p, v in enumerate(values))


def _caption(record: Record, index: int, step: Any, to_act: int | None, shown: Sequence[int]) -> str:
    n = len(record.steps)
    if step is None:
        lines = [f"the deal (step 0 of {n})"]
    else:
        lines = [f"step {index} of {n}: {who(record, step.seat)}: {step.name}"
                 + (f"  | pays {_amounts(step.rewards)}" if step.rewards else "")]
    if to_act is not None:
        lines.append(f"to act: {who(record, to_act)}")
    else:
        end = "the end" if record.terminal else ("cut off by a cap" if record.truncated else "unfinished record")
        lines.append(f"{end}: rewards {', '.join(f'{who(record, p)} {r:+g}' for p, r in enumerate(record.rewards))}")
        lines += [f"{k}: {_amounts(v, '')}" for k, v in record.stats.items()]
    lines.append("picture: the view of " + ("every seat" if len(shown) > 1 else who(record, shown[0])))
    return "\n".join(lines)


@dataclass(frozen=True)
class DealEnd:
    """One finished deal or hand of the replay: its name (``deal 1/8``), why it paid what it
    did in one line (the head of ``Game.explain``), and what it paid each seat."""

    step: int
    name: str
    why: str
    paid: tuple[float, ...]


def deal_end(step: int, explanation: str, paid: Sequence[float]) -> DealEnd:
    """A :class:`DealEnd` from the explanation the deal's last frame shows: ``deal 1/8: P1
    went out`` gives ``deal 1/8`` and ``P1 went out``. A head that only announces what
    follows (OFC's ``showdown of hand 1/6:``) takes its reasons from the lines below (each
    pair's comparison, fouls included); a head naming no seat (``showdown``) gets the last
    line (who took the pot and why); Pulle's running totals say who is out."""
    lines = [line.strip().replace(" (you)", "") for line in explanation.splitlines() if line.strip()]
    name, _, why = lines[0].partition(": ")
    if not why and lines[0].endswith(":"):
        name = lines[0].rstrip(":").removeprefix("showdown of ")
        why = "; ".join(line for line in lines[1:] if " vs " in line.split(":")[0])
    elif not re.search(r"P\d", why) and len(lines) > 1:  # "showdown": the last line says who won
        why += ": " + lines[-1]
    for line in lines[1:]:  # Pulle: the running totals say who is out (the rule's reminder is said once, above)
        if line.startswith("running totals now: "):
            why += "; totals " + re.sub(r" \(\d+ or more sits out\)$", "", line.removeprefix("running totals now: "))
    return DealEnd(step, name, why or lines[0], tuple(float(x) for x in paid))


def summary(record: Record, ends: Sequence[DealEnd]) -> str:
    """The whole game at a glance, for its last frame: one line per finished deal or hand
    (what it paid each seat and why), then the totals of the record."""
    if not ends:
        return ""
    unit = ends[0].name.split(" ")[0] if ends[0].name.split(" ")[0].isalpha() else "deal"
    lines = [f"the whole game, {unit} by {unit} (what each paid; why):" if len(ends) > 1
             else "the whole game (what it paid; why):"]
    lines += [f"  {e.name}: {_amounts(e.paid)} | {e.why}" for e in ends]
    rest = [t - sum(e.paid[p] for e in ends) for p, t in enumerate(record.rewards)]
    if any(abs(x) > 1e-9 for x in rest):  # paid after the last finished deal (e.g. the end of the episode)
        lines.append(f"  at the end: {_amounts(rest)}")
    lines.append(f"  total: {', '.join(f'{who(record, p)} {r:+g}' for p, r in enumerate(record.rewards))}")
    return "\n".join(lines)


def ended_views(state: Any, seats: Sequence[int]) -> tuple[tuple[int, Any], ...] | None:
    """On the frame where a deal ends while the next is already dealt: each seat's view of
    the finished deal's final position (``state.ended_view``, where the game keeps it), so
    the picture shows how the deal ended rather than the next deal's first tiles; else None."""
    ended_view = getattr(state, "ended_view", None)
    if ended_view is None or state.current_player is None:
        return None
    views = tuple((p, ended_view(p)) for p in seats)
    return None if any(v is None for _, v in views) else views


def shots(record: Record, seat: SeatChoice = "acting", game: Any = None) -> list[Shot]:
    """Every frame of ``record`` (re-simulated and checked: ReplayError if it does not replay).
    The last frame's caption ends with :func:`summary`, the game deal by deal."""
    game = game_of(record, game)
    presenter = presenter_for(game)
    n = game.num_players
    if isinstance(seat, int) and not 0 <= seat < n:
        raise ConfigError(f"seat {seat} is out of range; allowed values: 0..{n - 1}, acting or all")
    out = []
    last_mover = 0
    explained = ""  # the latest finished hand's explanation, told once, on the frame it finished
    ends: list[DealEnd] = []
    paid_before = (0.0,) * n  # the totals when the previous deal ended
    for position in positions(record, game):
        state = position.state
        if position.step is not None:
            last_mover = position.step.seat
        to_act = state.current_player
        if seat == "all":
            seats = tuple(range(n))
        elif seat == "acting":
            seats = (to_act if to_act is not None else last_mover,)
        else:
            seats = (int(seat),)
        news = presenter.explain(state.view(0))  # one seat's words decide whether a hand has just finished
        finished = bool(news) and news != explained
        ended = ended_views(state, seats) if finished else None
        views = ended or tuple((p, state.view(p)) for p in seats)
        caption = _caption(record, position.index, position.step, to_act, seats)
        if finished:
            explained = news
            caption += "\n" + presenter.explain(state.view(views[0][0]))  # told as the pictured seat knows it
            ends.append(deal_end(position.index, news, [t - b for t, b in zip(position.totals, paid_before)]))
            paid_before = position.totals
            if ended is not None:
                caption += (f"\n(the picture: {ends[-1].name} as it ended; the next is already dealt, "
                            "pictured from the next step)")
        out.append(Shot(position.index, caption, views))
    tail = summary(record, ends)
    if tail and out:
        last = out[-1]
        out[-1] = Shot(last.index, last.caption + "\n" + tail, last.views)
    return out


def text_frames(record: Record, seat: SeatChoice = "acting", game: Any = None) -> list[str]:
    """The frames as text: the caption, then each shown seat's view as its presenter renders it."""
    game = game_of(record, game)
    presenter = presenter_for(game)
    frames = []
    for shot in shots(record, seat, game):
        parts = [shot.caption]
        for p, view in shot.views:
            parts.append(f"--- view of {who(record, p)} ---" if len(shot.views) > 1 else "")
            parts.append(presenter.render(view))
        frames.append("\n".join(x for x in parts if x))
    return frames


def html_frames(record: Record, seat: SeatChoice = "acting", game: Any = None) -> list[Any]:
    """The frames as pictures (``render_svg`` of each shown view; several side by side, two
    or three to a row, so every seat's view of a position fits one screen)."""
    from parlor.envs.engine import svg
    from parlor.training.evaluation.html import Frame

    game = game_of(record, game)
    draw = svg_renderer(game)
    frames = []
    for shot in shots(record, seat, game):
        pictures = [draw(view) for _, view in shot.views]
        picture = pictures[0] if len(pictures) == 1 else svg.grid(
            pictures, f"step {shot.index}: every seat", columns=2 if len(pictures) <= 4 else 3)
        frames.append(Frame(picture, shot.caption))
    return frames


def title(record: Record, number: int | None = None) -> str:
    """``ofc_v0 game 3: heuristic vs random, seed 7, 26 steps``."""
    agents = " vs ".join(map(safe_text, record.agents)) if record.agents else f"{record.num_players} seats"
    seed = "" if record.seed is None else f", seed {record.seed}"
    return f"{safe_text(record.env)} game{'' if number is None else f' {number}'}: {agents}{seed}, {count(len(record.steps), 'step')}"


def write_html(record: Record, path: str | Path, seat: SeatChoice = "acting", game: Any = None,
               number: int | None = None, start: int | str = 0) -> Path:
    """One self-contained HTML page with every frame of ``record`` and step controls,
    opening on frame ``start`` (a step number, ``"end"``; ``#frame=N`` in the address wins)."""
    from parlor.training.evaluation.html import write_replay_page

    return write_replay_page(path, html_frames(record, seat, game), title(record, number), start)
