"""Showing a game record: the frames of ``parlor replay``, as text or as an HTML page of pictures.

Frame ``k`` is the position after ``k`` steps: frame 0 is the deal, then one frame per
step, so an episode of N steps has N + 1 frames. Each frame is drawn as one seat sees it
(the game's View: text with ``Game.render``, a picture with ``render_svg``):

- ``seat="acting"`` (the default): the seat to act there (the last mover once the episode
  is over), so each decision is shown with exactly what its player knew;
- a seat number: that seat in every frame (e.g. the loser's, to see why he lost);
- ``"all"``: every seat's view, one under the other (a replay knows everything).

The caption names the step that led to the frame (who, the move with its cards or tile,
what it paid), who acts next, whose view the picture is, and at the end the result and the
statistics. The frame where a hand or deal has just finished also says why it paid what it
did (``Game.explain``: OFC's rows, hand names, royalties, fouls and points; the poker
showdown; who went out or blocked), so the picture of a lost game shows why it was lost.
The page (:mod:`.html`) is one self-contained file. No torch.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
    raise ValueError(f"--seat {text!r}: allowed values are acting, all or a seat 0..{num_players - 1}")


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


def shots(record: Record, seat: SeatChoice = "acting", game: Any = None) -> list[Shot]:
    """Every frame of ``record`` (re-simulated and checked: ReplayError if it does not replay)."""
    game = game_of(record, game)
    n = game.num_players
    if isinstance(seat, int) and not 0 <= seat < n:
        raise ValueError(f"seat {seat} is out of range; allowed values: 0..{n - 1}, acting or all")
    out = []
    last_mover = 0
    explained = ""  # the latest finished hand's explanation, told once, on the frame it finished
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
        views = tuple((p, state.view(p)) for p in seats)
        caption = _caption(record, position.index, position.step, to_act, seats)
        news = game.explain(state.view(0))  # one seat's words decide whether a hand has just finished
        if news and news != explained:
            explained = news
            caption += "\n" + game.explain(views[0][1])  # told as the pictured seat knows it
        out.append(Shot(position.index, caption, views))
    return out


def text_frames(record: Record, seat: SeatChoice = "acting", game: Any = None) -> list[str]:
    """The frames as text: the caption, then each shown seat's ``Game.render`` of its view."""
    game = game_of(record, game)
    frames = []
    for shot in shots(record, seat, game):
        parts = [shot.caption]
        for p, view in shot.views:
            parts.append(f"--- view of {who(record, p)} ---" if len(shot.views) > 1 else "")
            parts.append(game.render(view))
        frames.append("\n".join(x for x in parts if x))
    return frames


def html_frames(record: Record, seat: SeatChoice = "acting", game: Any = None) -> list[Any]:
    """The frames as pictures (``render_svg`` of each shown view; several are stacked)."""
    from parlor.envs.aec import svg_renderer
    from parlor.envs.engine import svg
    from parlor.training.evaluation.html import Frame

    game = game_of(record, game)
    draw = svg_renderer(game)
    frames = []
    for shot in shots(record, seat, game):
        pictures = [draw(view) for _, view in shot.views]
        picture = pictures[0] if len(pictures) == 1 else svg.stack(pictures, f"step {shot.index}: every seat")
        frames.append(Frame(picture, shot.caption))
    return frames


def title(record: Record, number: int | None = None) -> str:
    """``ofc_v0 game 3: heuristic vs random, seed 7, 26 steps``."""
    agents = " vs ".join(map(safe_text, record.agents)) if record.agents else f"{record.num_players} seats"
    seed = "" if record.seed is None else f", seed {record.seed}"
    return f"{safe_text(record.env)} game{'' if number is None else f' {number}'}: {agents}{seed}, {len(record.steps)} steps"


def write_html(record: Record, path: str | Path, seat: SeatChoice = "acting", game: Any = None,
               number: int | None = None) -> Path:
    """One self-contained HTML page with every frame of ``record`` and step controls."""
    from parlor.training.evaluation.html import write_replay_page

    return write_replay_page(path, html_frames(record, seat, game), title(record, number))
