"""Replays that tell the story (issue 36.3) and show names safely (issue 34.4): the frame
that ends a deal pictures that deal's final position, the last frame sums up the whole
game deal by deal, Tonk's last frame shows the hands the rules counted, every seat fits
one picture, pages and the terminal open at any frame, and labels from a record print with
their control characters escaped."""
from __future__ import annotations

import argparse
import dataclasses
import io
import json
import re
from pathlib import Path

import pytest

from parlor import envs
from parlor.agents.episodes import play_episode
from parlor.agents.registry import make_agent
from parlor.cli import replay as replay_cli_mod
from parlor.envs.engine.cards import format_card
from parlor.envs.records import Record, positions, record_episode, write_records
from parlor.training.evaluation.html import replay_page, start_frame
from parlor.training.evaluation.replay import deal_end, html_frames, shots, text_frames

NASTY = "evil\x1b]0;owned\x07\x1b[2J\u202e"


def recorded(name: str, seed: int = 6, **options) -> Record:
    game = envs.make_game(name, **options)
    labels = ["heuristic"] + ["random"] * (game.num_players - 1)
    agents = [make_agent(label, game, seed=p) for p, label in enumerate(labels)]
    return record_episode(game, play_episode(game, agents, seed=seed).state, seed=seed, agents=labels)


@pytest.fixture(scope="module")
def buki() -> Record:
    return recorded("buki_v0")


def deal_ending_steps(record: Record) -> list[int]:
    """The steps after which a deal was over, read off the replay (the deal counter moved on or the episode ended)."""
    game = envs.make_game(record.env, **record.options)
    out, deal = [], 0
    for position in positions(record, game):
        view = position.state.view(0)
        if view.deal_index != deal or (position.state.current_player is None and position.index):
            out.append(position.index)
            deal = view.deal_index
    return out


def test_the_last_frame_sums_up_every_deal_with_what_it_paid_and_why(buki: Record) -> None:
    ends = deal_ending_steps(buki)
    assert len(ends) == 8  # Buki's eight deals
    last = shots(buki)[-1].caption
    table = last[last.index("the whole game, deal by deal"):].splitlines()
    rows = [line for line in table if re.match(r"  deal \d/8: ", line)]
    assert [int(re.match(r"  deal (\d)/8", r)[1]) for r in rows] == list(range(1, 9))
    paid = []  # what each deal paid, from the steps of the record
    bounds = [0, *ends]
    for a, b in zip(bounds, bounds[1:]):
        steps = [s.rewards for s in buki.steps[a:b] if s.rewards]
        paid.append([sum(r[p] for r in steps) for p in range(4)])
    for row, amounts in zip(rows, paid):
        assert row.split(" | ")[0].endswith(", ".join(f"P{p} {v:+g}" for p, v in enumerate(amounts)))
        assert re.search(r"\| (P\d went out|the line blocked)", row), row  # and why
    assert [sum(p[s] for p in paid) for s in range(4)] == pytest.approx(list(buki.rewards))
    assert table[-1] == "  total: " + ", ".join(f"player_{p} ({buki.agents[p]}) {r:+g}"
                                                for p, r in enumerate(buki.rewards))


def test_the_frame_that_ends_a_deal_pictures_that_deal_not_the_next(buki: Record) -> None:
    end = deal_ending_steps(buki)[0]
    frames = shots(buki)
    views = dict(frames[end].views)
    view = next(iter(views.values()))
    assert view.deal_index == 0 and view.phase == "deal over" and view.current_player is None
    assert len(view.line) == sum(1 for s in buki.steps[:end] if s.name.startswith("play "))  # the last tile is on it
    assert "(the picture: deal 1/8 as it ended; the next is already dealt" in frames[end].caption
    assert "deal 1/8: " in frames[end].caption
    text = text_frames(buki)[end]
    assert "deal 1/8" in text and "to act: nobody (this deal is over)" in text and "line: (empty" not in text
    after = next(iter(dict(frames[end + 1].views).values()))
    assert after.deal_index == 1  # the next step pictures the new deal
    picture = html_frames(buki)[end].svg
    assert "this deal is over" in picture


def test_tonk_last_frame_shows_every_counted_hand() -> None:
    record = recorded("tonk_v0")
    game = envs.make_game("tonk_v0")
    final = list(positions(record, game))[-1].state
    hands = final.view(0).last_result.hands
    assert len(hands) == 3 and all(hands)
    text = text_frames(record)[-1]
    pictured = dict(shots(record)[-1].views)
    for seat in range(3):
        if seat not in pictured:  # the other seats' cards, face up in words
            assert f"shown {' '.join(format_card(c, symbols=True) for c in hands[seat])}" in text
    assert "every hand is shown" in html_frames(record)[-1].svg


def test_every_seat_fits_one_picture_side_by_side(buki: Record) -> None:
    one = html_frames(buki, seat=0)[5].svg
    every = html_frames(buki, seat="all")[5].svg
    size = lambda svg: tuple(float(x) for x in re.match(r'<svg[^>]*width="([\d.]+)" height="([\d.]+)"', svg).groups())  # noqa: E731
    (w1, h1), (w4, h4) = size(one), size(every)
    assert w4 == pytest.approx(2 * w1 + 8) and h4 == pytest.approx(2 * h1 + 8)  # 2 x 2, not 4 stacked
    assert w4 / h4 == pytest.approx(w1 / h1, rel=0.05)  # the page scales it to its width: one screen


@pytest.mark.parametrize("start,count,index", [(0, 5, 0), (3, 5, 3), ("end", 5, 4), (-1, 5, 4), ("-2", 5, 3),
                                                ("start", 5, 0), ("4", 5, 4)])
def test_start_frame_names_any_frame(start, count, index) -> None:
    assert start_frame(start, count) == index


@pytest.mark.parametrize("start", [5, -6, "later", "1.5", True])
def test_start_frame_refuses_what_is_not_a_frame(start) -> None:
    with pytest.raises(ValueError, match=r"--start .*allowed: start, end or a frame 0\.\.4"):
        start_frame(start, 5, "--start")


def test_the_page_opens_on_its_start_frame_or_the_one_its_address_names(buki: Record) -> None:
    frames = html_frames(buki)
    page = replay_page(frames, "buki", start="end")
    last = len(frames) - 1
    assert f'data-start="{last}"' in page and f'value="{last}"' in page
    assert "#frame=" in page and "hashchange" in page and "/^#frame=(end|-?[0-9]+)$/" in page


def run_replay(*argv: str, script: str = "q\n") -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    replay_cli_mod.add_arguments(parser)
    out = io.StringIO()
    code = replay_cli_mod.run(parser.parse_args(list(argv)), stdin=io.StringIO(script), stdout=out)
    return code, out.getvalue()


def test_replay_start_end_opens_on_the_result(buki: Record, tmp_path: Path, capsys) -> None:
    path = write_records(tmp_path / "buki.jsonl", [buki])
    steps = len(buki.steps)
    code, text = run_replay(str(path), "--start", "end")
    assert code == 0 and f"step {steps} of {steps}" in text.split("[step")[0] and "the whole game" in text
    code, text = run_replay(str(path), "--start", "26", script="\nq\n")
    assert code == 0 and text.split("\n", 1)[1].startswith("step 26 of") and f"[step 27/{steps}]" in text
    page = tmp_path / "end.html"
    code, text = run_replay(str(path), "--html", str(page), "--start", "end")
    assert code == 0 and f"opening at frame {steps}" in text and f"{page}#frame=N" in text
    assert f'data-start="{steps}"' in page.read_text(encoding="utf-8")
    assert run_replay(str(path), "--start", "9999")[0] == 2
    assert "--start 9999 is out of range; allowed: start, end or a frame 0..227" in capsys.readouterr().err


def test_labels_and_tags_from_a_record_print_escaped(buki: Record, tmp_path: Path, capsys) -> None:
    nasty = dataclasses.replace(buki, agents=(NASTY, "random", "random", "random"), tags={"note\x1b[31m": NASTY})
    path = write_records(tmp_path / "nasty.jsonl", [nasty])
    for argv in (["--list"], ["--start", "end"], ["--worst", "nobody"]):
        code, text = run_replay(str(path), *argv)
        text += capsys.readouterr().err
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    code, text = run_replay(str(path), "--list")
    assert "player_0 (evil\\x1b]0;owned\\x07\\x1b[2J\\u202e)" in text and "note\\x1b[31m" in text
    page = tmp_path / "nasty.html"
    assert run_replay(str(path), "--html", str(page))[0] == 0
    html = page.read_text(encoding="utf-8")
    assert "\x1b" not in html and "\u202e" not in html and "<title>buki_v0 game 0: evil\\x1b]0;owned" in html
    data = json.loads(re.search(r'<script id="frames" type="application/json">(.*?)</script>', html, re.S)[1]
                      .replace("<\\/", "</"))
    assert all("\x1b" not in f["caption"] for f in data) and any("evil\\x1b" in f["caption"] for f in data)


def test_deal_end_reads_the_why_off_each_games_explanation() -> None:
    buki = deal_end(3, "deal 2/8: P0 went out (played the last tile)\n  paid: P0 +17", [17, -5, -6, -6])
    assert (buki.name, buki.why, buki.paid) == ("deal 2/8", "P0 went out (played the last tile)", (17, -5, -6, -6))
    poker = deal_end(9, "game 2/5: showdown\n  P0: 7♣ 9♦\n  P0 takes the pot of 6: three of a kind beats pair", [4, -4])
    assert poker.why == "showdown: P0 takes the pot of 6: three of a kind beats pair"
    ofc = deal_end(26, "showdown of hand 2/6:\n  P0 (you): top ...\n  P1: FOUL, ...\n"
                       "  P0 vs P1: P1 fouled and pays P0 6 + royalties 0 = 6\n  points: P0 +6, P1 -6", [6, -6])
    assert (ofc.name, ofc.why) == ("hand 2/6", "P0 vs P1: P1 fouled and pays P0 6 + royalties 0 = 6")


def test_the_deal_end_picture_keeps_the_bets_the_deal_settled(buki: Record) -> None:
    end = deal_ending_steps(buki)[0]
    frames = shots(buki)
    before = next(iter(dict(frames[end - 1].views).values()))  # the last tile still to play
    ended = next(iter(dict(frames[end].views).values()))
    assert ended.bets == before.bets and any(ended.bets)  # not cleared by the settlement
    assert ended.chips != before.chips  # but the chips are those after it


def test_a_multi_hand_ofc_replay_pictures_each_showdown_then_sums_up_the_hands() -> None:
    record = recorded("ofc_v0", seed=3, num_hands=3)
    frames = shots(record)
    ends = [k for k, shot in enumerate(frames) if re.search(r"^showdown of hand \d/3:", shot.caption, re.M)]
    assert len(ends) == 3
    for hand, k in enumerate(ends[:2]):  # the first two: the next hand is already dealt
        view = next(iter(dict(frames[k].views).values()))
        assert view.hand_index == hand and view.current_player is None and view.start_player == hand % 2
        assert all(len(row) == size for board in view.rows for row, size in zip(board, (3, 5, 5)))  # full boards
        assert "hand over (its showdown)" in text_frames(record)[k]
    last = frames[-1].caption
    assert [int(m) for m in re.findall(r"^  hand (\d)/3: P0 ", last, re.M)] == [1, 2, 3]
    assert re.search(r"^  hand 1/3: .* \| P0 vs P1: ", last, re.M)


def test_a_washizu_game_end_pictures_that_game_not_the_next() -> None:
    record = recorded("washizu_poker_v0")
    frames = shots(record)
    ends = [k for k, shot in enumerate(frames) if re.search(r"^game \d/5: ", shot.caption, re.M)]
    assert len(ends) >= 2
    k = ends[0]
    before = next(iter(dict(frames[k - 1].views).values()))
    view = next(iter(dict(frames[k].views).values()))
    assert (view.game_number, view.phase, view.current_player) == (0, "game over", None)
    assert record.steps[k - 1].name == "drop" and view.bets == before.bets  # game 1's bets, not the next ante
    assert "this game is over" in html_frames(record)[k].svg
    after = next(iter(dict(frames[k + 1].views).values()))
    assert after.game_number == 1


def test_a_multi_hand_tonk_hand_end_pictures_that_hand_with_every_hand_shown() -> None:
    record = recorded("tonk_v0", seed=2, num_hands=3)
    frames = shots(record)
    ends = [k for k, shot in enumerate(frames) if re.search(r"^hand \d/3: ", shot.caption, re.M)]
    assert len(ends) == 3
    k = ends[0]
    view = next(iter(dict(frames[k].views).values()))
    assert (view.hand_index, view.current_player, view.phase) == (0, None, "over")
    assert view.last_result.hand_index == 0 and all(view.last_result.hands)
    picture = html_frames(record)[k].svg
    assert "hand over" in picture and "every hand is shown" in picture
    assert next(iter(dict(frames[k + 1].views).values())).hand_index == 1
