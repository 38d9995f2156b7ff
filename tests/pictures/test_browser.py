"""The replay page in a real browser: headless Chromium (Debian's package) opens a page of
real frames for every game, steps it with the buttons, the arrow keys and the slider,
checks that the picture changes, and saves screenshots. Recorded games open at their end
(``--start end``, ``#frame=end``) or any frame the address names; the whole page of each
game's last frame (the picture and the game's summary) is kept as a screenshot. Skipped
where no Chromium is installed; `make browser-test` installs it and keeps the screenshots
in runs/browser-test/.
"""
from __future__ import annotations

import io
import os
import re
from pathlib import Path

import numpy as np
import pytest

from parlor import envs
from parlor.training.evaluation.html import write_replay_page
from tests.pictures.cdp import Chromium, find_chromium
from tests.pictures.play import random_frames

CHROMIUM = find_chromium()
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium installed: `make browser-test` installs Debian's "
                                                "chromium and runs the replay page in it"),
]
FRAME = "document.body.dataset.frame"
STAGE = "document.getElementById('stage').innerHTML"


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chromium = Chromium(CHROMIUM, tmp_path_factory.mktemp("chromium-profile"))
    yield chromium
    chromium.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = os.environ.get("PARLOR_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def _picture_pixels(png: bytes) -> np.ndarray:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGB"))


@pytest.mark.parametrize("name", envs.ENVS)
def test_replay_page_steps_in_chromium(name: str, browser: Chromium, shots: Path, tmp_path: Path) -> None:
    frames = random_frames(name, steps=8, seed=4)
    last = len(frames) - 1
    page = write_replay_page(tmp_path / f"{name}.html", frames, f"{name} replay (seed 4)")
    browser.open(page)
    assert browser.evaluate(FRAME) == "0"
    assert browser.evaluate("document.getElementById('counter').textContent") == f"1 / {len(frames)}"
    start = browser.evaluate(STAGE)
    assert start.startswith("<svg") and browser.evaluate("document.querySelectorAll('#stage svg').length") == 1
    first_png = browser.screenshot(shots / f"{name}-0-start.png")

    browser.click("#next")
    assert browser.evaluate(FRAME) == "1"
    assert browser.evaluate(STAGE) != start
    assert browser.evaluate("document.getElementById('caption').textContent") == frames[1].caption
    next_png = browser.screenshot(shots / f"{name}-1-next.png")
    assert not np.array_equal(_picture_pixels(first_png), _picture_pixels(next_png)), "the picture must change"

    browser.press("ArrowRight", 39)
    assert browser.evaluate(FRAME) == "2"
    browser.press("ArrowLeft", 37)
    assert browser.evaluate(FRAME) == "1"
    browser.click("#last")
    assert browser.evaluate(FRAME) == str(last)
    browser.click("#next")  # stays on the last frame
    assert browser.evaluate(FRAME) == str(last)
    browser.screenshot(shots / f"{name}-2-last.png")
    browser.click("#first")
    assert browser.evaluate(FRAME) == "0"
    assert browser.evaluate(STAGE) == start
    browser.click("#slider", fraction_x=0.98)
    assert int(browser.evaluate(FRAME)) >= last - 1
    browser.press("Home", 36)
    assert browser.evaluate(FRAME) == "0"

    pixels = _picture_pixels(first_png)
    assert pixels.std() > 20, "a blank screenshot"
    assert browser.script_errors() == []
    assert all(url.startswith("file://") for url in browser.requests()), browser.requests()


@pytest.mark.parametrize("name", envs.ENVS)
def test_the_replay_page_of_a_recorded_game_shows_every_step(name: str, browser: Chromium, shots: Path,
                                                              tmp_path: Path) -> None:
    """`parlor replay FILE --html`: a recorded heuristic-vs-random game, one frame per step
    after the deal, each caption naming its step; screenshots of the deal and the end."""
    from parlor.agents.episodes import play_episode
    from parlor.agents.registry import make_agent
    from parlor.envs.records import record_episode
    from parlor.training.evaluation.replay import write_html

    game = envs.make_game(name)
    labels = ["heuristic"] + ["random"] * (game.num_players - 1)
    agents = [make_agent(label, game, seed=p) for p, label in enumerate(labels)]
    record = record_episode(game, play_episode(game, agents, seed=6).state, seed=6, agents=labels)
    steps = len(record.steps)
    browser.open(write_html(record, tmp_path / f"{name}-record.html"))
    assert browser.evaluate("document.getElementById('counter').textContent") == f"1 / {steps + 1}"
    assert browser.evaluate("document.getElementById('caption').textContent").startswith("the deal")
    browser.screenshot(shots / f"{name}-record-deal.png")
    browser.click("#next")
    caption = browser.evaluate("document.getElementById('caption').textContent")
    assert caption.startswith(f"step 1 of {steps}: player_{record.steps[0].seat} ") and record.steps[0].name in caption
    browser.click("#last")
    assert browser.evaluate(FRAME) == str(steps)
    assert "rewards player_0 (heuristic)" in browser.evaluate("document.getElementById('caption').textContent")
    browser.screenshot(shots / f"{name}-record-end.png")
    assert browser.script_errors() == []
    assert all(url.startswith("file://") for url in browser.requests()), browser.requests()


# the games whose last frame issue 36 asked to see: the picture and the summary under it
LAST_FRAME_GAMES = ("ofc_v0", "buki_v0", "pulle_v0", "tonk_v0", "washizu_poker_v0", "buffalo_bill_v0")
CAPTION = "document.getElementById('caption').textContent"


def _recorded(name: str, seed: int = 6):
    from parlor.agents.episodes import play_episode
    from parlor.agents.registry import make_agent
    from parlor.envs.records import record_episode

    game = envs.make_game(name)
    labels = ["heuristic"] + ["random"] * (game.num_players - 1)
    agents = [make_agent(label, game, seed=p) for p, label in enumerate(labels)]
    return record_episode(game, play_episode(game, agents, seed=seed).state, seed=seed, agents=labels)


@pytest.mark.parametrize("name", LAST_FRAME_GAMES)
def test_the_last_frame_of_a_recorded_game_tells_the_whole_game(name: str, browser: Chromium, shots: Path,
                                                                 tmp_path: Path) -> None:
    """`parlor replay FILE --html OUT --start end`: the page opens on the last frame, whose
    caption sums up the game deal by deal (or hand by hand) below the final picture."""
    from parlor.training.evaluation.replay import write_html

    record = _recorded(name)
    steps = len(record.steps)
    page = write_html(record, tmp_path / f"{name}-end.html", start="end")
    browser.open(page)
    assert browser.evaluate(FRAME) == str(steps)
    caption = browser.evaluate(CAPTION)
    assert re.search(r"the whole game(, (deal|hand|game) by (deal|hand|game))? \(what", caption), caption
    assert "total: player_0 (heuristic)" in caption
    png = browser.screenshot(shots / f"{name}-last-frame.png", full_page=True)
    bottom = browser.evaluate("document.getElementById('caption').getBoundingClientRect().bottom")
    assert _picture_pixels(png).shape[0] >= bottom  # the whole page: the summary below the picture too
    assert browser.evaluate("location.hash") == f"#frame={steps}"
    assert browser.script_errors() == []


def test_a_page_opens_at_the_frame_its_address_names(browser: Chromium, tmp_path: Path) -> None:
    from parlor.training.evaluation.replay import write_html

    record = _recorded("buki_v0")
    steps = len(record.steps)
    page = write_html(record, tmp_path / "buki.html")
    browser.open(page, "#frame=26")
    assert browser.evaluate(FRAME) == "26" and browser.evaluate(CAPTION).startswith("step 26 of")
    browser.click("#next")
    assert browser.evaluate(FRAME) == "27" and browser.evaluate("location.hash") == "#frame=27"  # the address follows
    browser.open(page, "#frame=end")
    assert browser.evaluate(FRAME) == str(steps)
    browser.open(page, "#frame=-2")
    assert browser.evaluate(FRAME) == str(steps - 1)
    browser.open(page, "#frame=oops")  # not a frame: the page's own start
    assert browser.evaluate(FRAME) == "0"
    browser.evaluate("location.hash = '#frame=5'")
    browser.evaluate("new Promise(r => setTimeout(r, 50))")
    assert browser.evaluate(FRAME) == "5"  # a changed address moves the page
    assert browser.script_errors() == []


def test_the_deal_end_and_every_seat_pictures_in_chromium(browser: Chromium, shots: Path, tmp_path: Path) -> None:
    """Buki's frame where deal 1 ends pictures that deal's last tile; every seat's view of
    one position fits the window (2 x 2, no scrolling past the first seat)."""
    from parlor.training.evaluation.replay import shots as replay_shots
    from parlor.training.evaluation.replay import write_html

    record = _recorded("buki_v0")
    end = next(s.index for s in replay_shots(record) if "as it ended; the next is already dealt" in s.caption)
    page = write_html(record, tmp_path / "buki-deal-end.html", start=end)
    browser.open(page)
    assert "this deal is over" in browser.evaluate(STAGE)
    browser.screenshot(shots / "buki_v0-deal-1-end.png")
    page = write_html(record, tmp_path / "buki-all.html", seat="all", start=end)
    browser.open(page)
    height = browser.evaluate("document.querySelector('#stage svg').getBoundingClientRect().height")
    assert height < 900, "every seat's view must fit the window"
    browser.screenshot(shots / "buki_v0-every-seat.png")
    assert browser.script_errors() == []
