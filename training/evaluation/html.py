"""The replay page: one self-contained HTML file that steps through pictures of a game.

Everything is inline (the SVG frames as JSON data, the script, the style): the page
needs no server and loads nothing from the network, so it can be mailed or opened from
disk. Controls: first / previous / next / last buttons, a slider, the arrow keys
(Home and End jump to the ends) and the step caption under the picture.

The page opens on its ``start`` frame (0 unless told), or on the frame its address names:
``replay.html#frame=N`` (0-based; a replay's frame N is the position after N steps),
``#frame=end`` or ``#frame=-1`` for the last. Stepping keeps the address in step, so a
copied address opens where the reader was.
No torch, no RL framework: frames are SVG strings, e.g. from a game's ``render_svg(view)``.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path

from parlor.envs.engine.game import ConfigError


@dataclass(frozen=True, slots=True)
class Frame:
    """One picture of the replay and the words under it (step number, who did what)."""

    svg: str
    caption: str

    def __post_init__(self) -> None:
        if not isinstance(self.svg, str) or not self.svg.lstrip().startswith("<svg"):
            raise ValueError(f"Frame.svg must be an SVG document string starting with '<svg', "
                             f"got {str(self.svg)[:40]!r}")
        if not isinstance(self.caption, str):
            raise ValueError(f"Frame.caption must be a string, got {type(self.caption).__name__}")


_STYLE = """
body { margin: 0; background: #1e3d2b; color: #f3f3ee; font-family: "DejaVu Sans", Verdana, sans-serif; }
header { padding: 8px 14px; font-size: 16px; font-weight: bold; }
#stage { padding: 0 14px; }
#stage svg { max-width: 100%; height: auto; display: block; }
#controls { display: flex; align-items: center; gap: 8px; padding: 10px 14px; }
#controls button { font-size: 15px; min-width: 44px; padding: 4px 10px; cursor: pointer; }
#slider { flex: 1; }
#counter { min-width: 90px; text-align: right; font-variant-numeric: tabular-nums; }
#caption { padding: 0 14px 14px; font-size: 15px; white-space: pre-wrap; }
"""

_SCRIPT = """
const frames = JSON.parse(document.getElementById("frames").textContent);
const stage = document.getElementById("stage"), slider = document.getElementById("slider");
const caption = document.getElementById("caption"), counter = document.getElementById("counter");
let at = 0;
function show(i) {
  at = Math.max(0, Math.min(frames.length - 1, i));
  stage.innerHTML = frames[at].svg;
  caption.textContent = frames[at].caption;
  counter.textContent = (at + 1) + " / " + frames.length;
  slider.value = at;
  document.body.dataset.frame = at;
  try {  // the address follows the frame; a browser refusing it for file: pages only loses that
    if (location.hash !== "#frame=" + at) history.replaceState(null, "", "#frame=" + at);
  } catch (e) {}
}
function anchored() {  // the frame the address names (#frame=N, #frame=end, #frame=-1), else null
  const m = /^#frame=(end|-?[0-9]+)$/.exec(location.hash);
  if (!m) return null;
  if (m[1] === "end") return frames.length - 1;
  const n = Number(m[1]);
  return n < 0 ? frames.length + n : n;
}
window.addEventListener("hashchange", () => { const n = anchored(); if (n !== null && n !== at) show(n); });
document.getElementById("first").onclick = () => show(0);
document.getElementById("prev").onclick = () => show(at - 1);
document.getElementById("next").onclick = () => show(at + 1);
document.getElementById("last").onclick = () => show(frames.length - 1);
slider.oninput = () => show(Number(slider.value));
document.addEventListener("keydown", (e) => {
  const moves = {ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: frames.length - 1};
  if (e.key in moves && e.target !== slider) { show(moves[e.key]); e.preventDefault(); }
});
const start = anchored();
show(start === null ? Number(document.body.dataset.start) : start);
"""


def _frames_json(frames: Sequence[Frame]) -> str:
    """The frames as JSON safe inside ``<script>``: ASCII only, and no ``</`` that could
    close the element early (``<\\/`` is the same string to JSON)."""
    data = json.dumps([{"svg": f.svg, "caption": f.caption} for f in frames], ensure_ascii=True)
    return data.replace("</", "<\\/")


def start_frame(start: int | str, count: int, name: str = "start frame") -> int:
    """The frame index ``start`` names among ``count`` frames: N (0-based), a negative N
    counting from the end, ``"end"`` or ``"start"``; ConfigError naming the allowed values."""
    allowed = f"allowed: start, end or a frame 0..{count - 1} (negative counts from the end)"
    if start in ("start", "end"):
        return 0 if start == "start" else count - 1
    if isinstance(start, str):
        if not start.lstrip("-").isdigit():
            raise ConfigError(f"{name} {start!r}: {allowed}")
        start = int(start)
    if isinstance(start, bool) or not isinstance(start, int) or not -count <= start < count:
        raise ConfigError(f"{name} {start!r} is out of range; {allowed}")
    return start % count


def replay_page(frames: Sequence[Frame], title: str, start: int | str = 0) -> str:
    """The HTML text of a replay page showing ``frames`` in order (at least one), opening on
    frame ``start`` (see :func:`start_frame`) unless its address names another."""
    if not frames:
        raise ValueError("a replay page needs at least one frame")
    first = start_frame(start, len(frames))
    for i, f in enumerate(frames):
        if not isinstance(f, Frame):
            raise ValueError(f"frames[{i}] must be a Frame(svg, caption), got {type(f).__name__}")
    last = len(frames) - 1
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<style>{_STYLE}</style>
</head>
<body data-frame="{first}" data-start="{first}">
<header>{escape(title)}</header>
<div id="stage"></div>
<div id="controls">
<button id="first" title="first step (Home)">|&#x25C0;</button>
<button id="prev" title="previous step (left arrow)">&#x25C0;</button>
<button id="next" title="next step (right arrow)">&#x25B6;</button>
<button id="last" title="last step (End)">&#x25B6;|</button>
<input id="slider" type="range" min="0" max="{last}" value="{first}" aria-label="step">
<span id="counter"></span>
</div>
<div id="caption"></div>
<script id="frames" type="application/json">{_frames_json(frames)}</script>
<script>{_SCRIPT}</script>
</body>
</html>
"""


def write_replay_page(path: str | Path, frames: Sequence[Frame], title: str, start: int | str = 0) -> Path:
    """Write :func:`replay_page` to ``path`` (UTF-8); returns the path."""
    path = Path(path)
    path.write_text(replay_page(frames, title, start), encoding="utf-8")
    return path
