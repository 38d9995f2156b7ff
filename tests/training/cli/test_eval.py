"""``parlor eval``: the run folder, a rerun from its saved config, errors that name the problem."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from parlor import envs
from parlor.cli import main

# one xdist worker for the module: its module fixture (a whole run) is built once, not once per worker
pytestmark = pytest.mark.xdist_group("test_eval")


@pytest.fixture(scope="module")
def tonk_run(tmp_path_factory):
    if "tonk_v0" not in envs.ENVS:
        pytest.skip("tonk_v0 is not registered yet")
    out = tmp_path_factory.mktemp("eval") / "run"
    code = main(["eval", "tonk_v0", "--agents", "random,heuristic,search:4:random", "--games", "12", "--seed", "2",
                 "--out", str(out), "--quiet"])
    return code, out


def test_cli_writes_the_run_folder(tonk_run, capsys) -> None:
    code, out = tonk_run
    assert code == 0
    for name in ("results.json", "results.csv", "results.md", "episodes.csv", "results.png", "config.yaml", "command.txt",
                 "git_revision.txt"):
        assert (out / name).is_file(), name
    results = json.loads((out / "results.json").read_text())
    assert results["env"] == "tonk_v0" and results["episodes"] == 3 * 12
    assert all("elo" in a for a in results["agents"])
    heuristic = next(a for a in results["agents"] if a["agent"] == "heuristic")
    assert {"drop", "caught", "tonk"} <= set(heuristic["stats"])
    assert "eval tonk_v0" in (out / "command.txt").read_text()


def test_cli_rerun_from_the_saved_config_gives_the_same_results(tonk_run, tmp_path) -> None:
    _, out = tonk_run
    again = tmp_path / "again"
    assert main(["eval", "--config", str(out / "config.yaml"), "--out", str(again), "--quiet", "--no-plot",
                 "--workers", "2"]) == 0
    first = json.loads((out / "results.json").read_text())["agents"]
    assert json.loads((again / "results.json").read_text())["agents"] == first


@pytest.mark.parametrize("argv,words", [
    (["eval", "tonk_v0", "--agents", "genius"], "unknown agent 'genius'"),
    (["eval", "no_such_game_v0"], "unknown environment"),
    (["eval", "tonk_v0", "--option", "no_such_option=1"], "allowed options"),
    (["eval", "tonk_v0", "--option", "stake=[1,"], "--option stake: not valid YAML at line"),
    (["eval", "tonk_v0", "--option", "stake=.nan"], "stake=nan must be a finite number"),
    (["eval", "tonk_v0", "--option", "stake"], "must look like KEY=VALUE"),
    (["eval", "tonk_v0", "--games", "0"], "games"),
    (["eval"], "name the game"),
    (["eval", "tonk_v0", "--seats", "1"], "seats only applies with field"),
    (["eval", "tonk_v0", "--field", "heuristic", "--seats", "7"], "allowed values: 0..2"),
    (["eval", "tonk_v0", "--field", "heuristic", "--seats", "x"], "--seats='x'"),
])
def test_cli_errors_name_the_problem(argv, words, capsys, tmp_path) -> None:
    if "tonk_v0" in argv and "tonk_v0" not in envs.ENVS:
        pytest.skip("tonk_v0 is not registered yet")
    assert main(argv + ["--out", str(tmp_path / "x"), "--quiet"]) == 2
    assert words in capsys.readouterr().err


def test_cli_reports_the_multi_hand_ofc_rates(tmp_path, capsys) -> None:
    out = tmp_path / "ofc"
    assert main(["eval", "ofc_v0", "--agents", "heuristic,random", "--option", "variant=pineapple",
                 "--option", "num_hands=3", "--games", "8", "--seed", "1", "--out", str(out), "--quiet",
                 "--no-plot"]) == 0
    printed = capsys.readouterr().out
    rates = ("fl_entry_rate", "fl_stay_rate", "points_per_fl_hand", "points_per_regular_hand")
    assert all(name in printed for name in rates) and "rates: ratio of sums" in printed
    heuristic = json.loads((out / "results.json").read_text())["agents"][0]
    assert set(heuristic["ratios"]) == set(rates) and {"points", "fl_hands", "fl_points"} <= set(heuristic["stats"])
    assert heuristic["ratios"]["points_per_regular_hand"]["mean"] > 0   # against random
    header = (out / "results.csv").read_text().splitlines()[0].split(",")
    assert {"points_per_fl_hand", "points_per_fl_hand_ci95"} <= set(header)
    assert "| agent | fl_entry_rate |" in (out / "results.md").read_text()


def test_results_say_what_was_run_and_episodes_name_the_agents(tonk_run) -> None:
    _, out = tonk_run
    results = json.loads((out / "results.json").read_text())
    assert results["seed"] == 2 and results["games"] == 12 and results["version"]
    assert results["git_revision"] == (out / "git_revision.txt").read_text().strip()
    # the command reproduces the results: no --out (where) or --workers (how fast)
    assert results["command"] == "parlor eval tonk_v0 --agents random,heuristic,search:4:random --games 12 --seed 2"
    assert list(results)[:4] == ["env", "options", "num_players", "games"]
    with open(out / "episodes.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["agent"] for r in rows} == {"random", "heuristic", "search:4:random"}
    assert all(r["agent"] == ["random", "heuristic", "search:4:random"][int(r["agent_index"])] for r in rows)


def test_game_from_plays_the_game_a_policy_was_trained_on(tmp_path, capsys) -> None:
    from parlor.agents.policy import read_signature

    policy = Path(__file__).resolve().parents[3] / "agents" / "pretrained" / "buki_betting.zip"
    signature = read_signature(policy)
    out = tmp_path / "run"
    assert main(["eval", "--game-from", str(policy), "--agents", "heuristic,always_min", "--games", "2",
                 "--out", str(out), "--quiet", "--no-plot"]) == 0
    results = json.loads((out / "results.json").read_text())
    assert results["env"] == signature["env"] == "buki_v0" and results["options"] == signature["options"]
    for extra, words in ((["--option", "features=false"], "leave out --preset and --option"),
                         (["tonk_v0"], "GAME 'tonk_v0' contradicts")):
        assert main(["eval", "--game-from", str(policy), *extra, "--out", str(tmp_path / "x")]) == 2
        assert words in capsys.readouterr().err
