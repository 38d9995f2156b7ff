"""The replay page builder: one self-contained HTML file (no server, no network) holding
every frame, with step controls; its data survives any text a frame may hold."""
from __future__ import annotations

import json
import re

import pytest

from parlor.training.evaluation.html import Frame, replay_page, write_replay_page
from tests.pictures.play import random_frames


def _data(page: str) -> list[dict]:
    match = re.search(r'<script id="frames" type="application/json">(.*?)</script>', page, re.S)
    assert match, "the frames' JSON block"
    return json.loads(match.group(1))


def test_page_holds_every_frame_and_caption_in_order(tmp_path) -> None:
    frames = random_frames("washizu_poker_v0", steps=6, seed=2)
    path = write_replay_page(tmp_path / "replay.html", frames, "Washizu replay")
    page = path.read_text(encoding="utf-8")
    assert [d["svg"] for d in _data(page)] == [f.svg for f in frames]
    assert [d["caption"] for d in _data(page)] == [f.caption for f in frames]
    assert f'max="{len(frames) - 1}"' in page
    for control in ('id="first"', 'id="prev"', 'id="next"', 'id="last"', 'id="slider"', "ArrowLeft", "ArrowRight"):
        assert control in page


def test_page_loads_nothing_from_outside() -> None:
    page = replay_page(random_frames("tonk_v0", steps=3), "Tonk")
    assert not re.search(r"\b(src|href)\s*=", page)
    assert "<link" not in page and "@import" not in page and "url(" not in page
    # the only address is the SVG namespace name, which no browser fetches
    assert set(re.findall(r"https?://[^\s\"'<\\]+", page)) == {"http://www.w3.org/2000/svg"}


def test_frame_text_cannot_close_the_script_early() -> None:
    svg = '<svg xmlns="http://www.w3.org/2000/svg"><text>&lt;/script&gt;</text></svg>'
    page = replay_page([Frame(svg, "caption with </script><b>bold</b> and ♠ \u2028 line")], "t")
    assert page.count("</script>") == 2  # the data block's and the code's own
    assert _data(page)[0]["caption"] == "caption with </script><b>bold</b> and ♠ \u2028 line"
    assert "<title>t</title>" in page


def test_bad_frames_are_rejected_by_name() -> None:
    with pytest.raises(ValueError, match="at least one frame"):
        replay_page([], "empty")
    with pytest.raises(ValueError, match=r"frames\[0\] must be a Frame"):
        replay_page(["<svg/>"], "strings")
    with pytest.raises(ValueError, match="Frame.svg must be an SVG document"):
        Frame("<html>", "x")
