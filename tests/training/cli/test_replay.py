"""Game records on the command line: ``parlor eval --record``, ``parlor play --record`` and
``parlor replay`` (terminal stepping driven by scripted input, ``--list``, ``--worst``, ``--html``)."""
from __future__ import annotations

import argparse
import dataclasses
import io
import json
import re
from pathlib import Path

import pytest

from parlor.cli import main
from parlor.cli import play as play_mod
from parlor.cli import replay as replay_mod
from parlor.cli.replay import step_through, worst_episode
from parlor.envs.records import Record, read_records, replay, write_records
from tests.training.cli.test_play import FirstLegal


@pytest.fixture(scope="module")
def ofc_records(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("eval") / "run"
    assert main(["eval", "ofc_v0", "--agents", "heuristic,random", "--games", "4", "--seed", "1", "--record",
                 "--out", str(out), "--quiet", "--no-plot"]) == 0
    return out / "records.jsonl"


def replay_cli(*argv: str, script: str = "") -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    replay_mod.add_arguments(parser)
    args = parser.parse_args(list(argv))
    out = io.StringIO()
    code = replay_mod.run(args, stdin=io.StringIO(script), stdout=out)
    return code, out.getvalue()


def test_eval_record_writes_one_replayable_record_per_episode(ofc_records: Path) -> None:
    run = ofc_records.parent
    records = read_records(ofc_records)
    episodes = list(csv_rows(run / "episodes.csv"))
    assert len(records) == len(episodes) == 4
    assert "--record" in (run / "command.txt").read_text() and "record: true" in (run / "config.yaml").read_text()
    results = json.loads((run / "results.json").read_text())
    for record, row in zip(records, episodes):
        replay(record)
        assert record.env == "ofc_v0" and set(record.agents) == {"heuristic", "random"}
        assert (record.tags["matchup"], record.tags["deal"]) == (int(row["matchup"]), int(row["deal"]))
        assert record.rewards[int(row["seat"])] == float(row["reward"])
        assert record.stacked == 1 and record.terminal
    heuristic = next(a for a in results["agents"] if a["agent"] == "heuristic")
    fouls = [r.stats["foul"][r.agents.index("heuristic")] for r in records]
    assert heuristic["stats"]["foul"]["mean"] == pytest.approx(sum(fouls) / len(fouls))


def test_eval_records_do_not_depend_on_the_workers(ofc_records: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    assert main(["eval", "--config", str(ofc_records.parent / "config.yaml"), "--workers", "2", "--out", str(again),
                 "--quiet", "--no-plot"]) == 0
    assert (again / "records.jsonl").read_text() == ofc_records.read_text()


def csv_rows(path: Path):
    import csv

    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return [r for r in rows if r["seat"] == "0"]  # one row per seat: the first seat's is the episode's


def test_replay_steps_through_the_terminal_on_scripted_keys(ofc_records: Path) -> None:
    code, text = replay_cli(str(ofc_records), "--episode", "1", script="\n\nb\n20\nnonsense\n99\nb\nq\n")
    assert code == 0
    shown = [int(m) for m in re.findall(r"^step (\d+) of 26", text, re.M)]
    assert text.startswith("ofc_v0 game 1: ") and "the deal (step 0 of 26)" in text
    assert shown == [1, 2, 1, 20, 19]  # Enter, Enter, b, 20, (nonsense and 99 refused), b
    assert text.count("'nonsense': not a command") == 1 and "'99': not a command" in text
    assert "picture: the view of player_0" in text and "OFC original" in text


def test_replay_ends_at_the_last_step_or_when_the_input_ends() -> None:
    frames = ["zero", "one", "two"]
    out = io.StringIO()
    step_through(frames, io.StringIO("2\n\n\n"), out)
    assert out.getvalue().count("two") == 1 and "end of the replay" in out.getvalue()
    out = io.StringIO()
    step_through(frames, io.StringIO("b\n"), out)
    assert "already at the deal" in out.getvalue() and "input ended" in out.getvalue()


def test_replay_list_worst_and_every_seat(ofc_records: Path) -> None:
    records = read_records(ofc_records)
    code, text = replay_cli(str(ofc_records), "--list")
    assert code == 0 and len(text.splitlines()) == 4 and "matchup 0 deal 0" in text
    episode, seat = worst_episode(records, "heuristic")
    assert records[episode].agents[seat] == "heuristic"
    assert records[episode].rewards[seat] == min(r.rewards[s] for r in records for s in range(2)
                                                  if r.agents[s] == "heuristic")
    code, text = replay_cli(str(ofc_records), "--worst", "heuristic", script="q\n")
    assert code == 0 and f"game {episode}:" in text and f"picture: the view of player_{seat} (heuristic)" in text
    code, text = replay_cli(str(ofc_records), "--seat", "all", script="q\n")
    assert "picture: the view of every seat" in text and "--- view of player_1 (" in text


def test_replay_html_has_one_frame_per_step_plus_the_deal(ofc_records: Path, tmp_path: Path) -> None:
    page = tmp_path / "worst.html"
    code, text = replay_cli(str(ofc_records), "--worst", "random", "--html", str(page))
    assert code == 0 and "27 frames" in text
    html = page.read_text(encoding="utf-8")
    frames = json.loads(re.search(r'<script id="frames" type="application/json">(.*?)</script>', html, re.S)[1]
                        .replace("<\\/", "</"))
    assert len(frames) == 27 and all(f["svg"].startswith("<svg") for f in frames)
    assert frames[0]["caption"].startswith("the deal") and frames[5]["caption"].startswith("step 5 of 26: player_")
    assert re.search(r"step 26 of 26: .*\| pays P0 [+-]", frames[-1]["caption"]) and "the end: rewards" in html
    svg_namespace = 'xmlns="http://www.w3.org/2000/svg"'  # a name, never fetched
    assert not any("://" in f["svg"].replace(svg_namespace, "") for f in frames), "the page must load nothing"
    assert "://" not in html.split('<script id="frames"')[0]


@pytest.mark.parametrize("argv,words", [
    (["--episode", "9"], "--episode 9 is out of range; "),
    (["--worst", "genius"], "--worst 'genius': no seat of that agent in the file; agents: heuristic, random"),
    (["--seat", "5"], "--seat '5': allowed values are acting, all or a seat 0..1"),
    (["--episode", "0", "--worst", "random"], "either --episode or --worst"),
])
def test_replay_errors_name_the_problem(ofc_records: Path, argv, words, capsys) -> None:
    assert replay_cli(str(ofc_records), *argv)[0] == 2
    assert words in capsys.readouterr().err


def test_an_edited_record_file_does_not_replay_and_names_the_step(ofc_records: Path, tmp_path: Path, capsys) -> None:
    record = read_records(ofc_records)[0]
    steps = list(record.steps)
    steps[3] = dataclasses.replace(steps[3], action=(steps[3].action + 1) % 3)
    bad = write_records(tmp_path / "bad.jsonl", [dataclasses.replace(record, steps=tuple(steps))])
    assert replay_cli(str(bad), script="q\n")[0] == 2
    assert "does not replay: step 4" in capsys.readouterr().err
    (tmp_path / "junk.jsonl").write_text('{"format": "parlor-record", "version": 1}\n')
    assert replay_cli(str(tmp_path / "junk.jsonl"))[0] == 2
    assert "junk.jsonl, line 1: record lacks parlor, env" in capsys.readouterr().err


def test_play_record_saves_the_humans_game(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    args = argparse.Namespace(game="tonk_v0", vs="random", seat=1, seed=5, preset=None, option=[], record=True)
    assert play_mod.run(args, stdin=FirstLegal(out), stdout=out) == 0
    path = Path(re.search(r"game record: (\S+)", out.getvalue())[1])
    assert path.parts[:2] == ("runs", "play") and path.name == "records.jsonl"
    (record,) = read_records(path)
    assert record.agents == ("random", "human", "random") and record.seed == 5 and record.terminal
    replay(record)
    assert Record.from_json(record.to_json()) == record
    code, text = replay_cli(str(path), "--seat", "1", script="\n" * 200)
    assert code == 0 and "end of the replay" in text and "player_1 (human)" in text


def test_the_frame_where_a_hand_finishes_explains_what_it_paid(ofc_records: Path) -> None:
    from parlor.training.evaluation.replay import shots

    for record in read_records(ofc_records):
        frames = shots(record, seat=0)
        told = [k for k, shot in enumerate(frames) if "showdown of hand 1/1:" in shot.caption]
        assert told == [len(frames) - 1]  # once, on the last frame (a single-hand episode)
        last = frames[-1].caption
        assert "P0 (you): " in last and "P1: " in last and "P0 vs P1: " in last and "points: P0 " in last


def test_each_showdown_of_a_multi_hand_match_is_explained_where_it_happens(tmp_path: Path) -> None:
    from parlor.training.evaluation.replay import shots

    out = tmp_path / "run"
    assert main(["eval", "ofc_v0", "--agents", "heuristic,random", "--games", "2", "--seed", "2", "--record",
                 "--option", "num_hands=3", "--out", str(out), "--quiet", "--no-plot"]) == 0
    for record in read_records(out / "records.jsonl"):
        frames = shots(record, seat="all")
        told = [[k for k, shot in enumerate(frames) if f"showdown of hand {hand}/3:" in shot.caption]
                for hand in (1, 2, 3)]
        assert all(len(frames_told) == 1 for frames_told in told)  # each hand once
        first, second, third = (frames_told[0] for frames_told in told)
        assert 0 < first < second < third == len(frames) - 1  # in order, where each finished
