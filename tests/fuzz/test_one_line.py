"""Issue 34.1: bad user input ends a ``parlor`` command with one line on stderr naming the
file or value and what is allowed, exit status 2, no traceback, and no run folder or copy
made. Each case runs the command line (:func:`parlor.cli.main`) on the crafted inputs of
:mod:`tests.fuzz.corpus` in this process, and one case of each command also in a child process
(what a user sees), which must print the same line: a fresh interpreter per case cost about
1 CPU-s (2 with torch) and tested nothing more. Bugs keep their traceback in a child process."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fuzz import corpus

Case = Callable[[Path], list[str]]  # (a fresh folder) -> argv after `parlor`


def yaml_file(folder: Path, text: str, name: str = "config.yaml") -> str:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def policy(make: Callable[[Path, Path], Path]) -> Callable[[Path], str]:
    return lambda folder: str(make(corpus.SHIPPED, folder / "crafted.zip"))


def not_an_evaluation(folder: Path) -> Path:
    out = folder / "out"
    out.mkdir()
    (out / "config.yaml").write_text("mine: true\n")
    (out / "results.csv").write_text("my own results\n")
    return out


EVAL = ["--out", "{out}", "--quiet", "--no-plot"]
CASES: dict[str, tuple[Case, str]] = {
    **{f"eval --config: {name}": ((lambda f, t=text: ["eval", "--config", yaml_file(f, t), *EVAL]), words)
       for name, (text, words) in corpus.BAD_YAML.items()},
    "train: alias bomb": (lambda f: ["train", yaml_file(f, corpus.alias_bomb()), "--out", "{out}"], "anchors and aliases"),
    "train: a folder": (lambda f: ["train", str(f), "--out", "{out}"], "is a folder; give a YAML file"),
    "train: unimportable opponent": (
        lambda f: ["train", yaml_file(f, "env: tonk_v0\nopponents: [{agent: no_such_pkg.mod:Agent}]\ntotal_steps: 64\n"),
                   "--out", "{out}", "--no-progress"], "no module named 'no_such_pkg'"),
    "eval --agents os.path:join": (lambda f: ["eval", "tonk_v0", "--agents", "os.path:join,random", *EVAL],
                                   "'os.path:join' is a function, not a class"),
    "play --seed -5": (lambda f: ["play", "tonk_v0", "--seed", "-5"], "--seed=-5 is not a seed"),
    "eval --games 10^20": (lambda f: ["eval", "tonk_v0", "--games", str(10**20), *EVAL],
                           "games=100000000000000000000 is out of range; allowed values: 1..1000000"),
    "eval search:10^20": (lambda f: ["eval", "tonk_v0", "--agents", f"search:{10**20},random", *EVAL],
                          "an integer in 1..100,000"),
    "eval --option alias": (lambda f: ["eval", "tonk_v0", "--option", "stake=&a 1", *EVAL], "anchors and aliases"),
    "eval --force on a folder of mine": (lambda f: ["eval", "tonk_v0", "--agents", "random", "--games", "2", "--out",
                                                    str(not_an_evaluation(f)), "--force", "--quiet", "--no-plot"],
                                         "is not an evaluation run folder"),
    "convert to a folder": (lambda f: ["convert", str(corpus.SHIPPED), str(f)], "is a folder; give the new policy"),
    "shield to a folder": (lambda f: ["shield", str(corpus.SHIPPED), str(f), "--clear"], "is a folder"),
    "convert: list options": (lambda f: ["convert", str(corpus.format1(f / "old.zip", {
        "format": 1, "env": "buki_v0", "options": [1, 2]})), "{out}"], "options must be a JSON object, not list"),
    "convert: string options": (lambda f: ["convert", str(corpus.format1(f / "old.zip", {
        "format": 1, "env": "buki_v0", "options": "features"})), "{out}"], "options must be a JSON object, not str"),
    **{f"shield --clear: {name}": ((lambda f, m=make: ["shield", policy(m)(f), "{out}", "--clear"]), "crafted.zip: ")
       for name, make in corpus.POLICY_BOMBS.items()},
    "shield: observation_low > high": (lambda f: ["shield", policy(corpus.low_above_high)(f), "{out}", "--clear"],
                                       "observation_low=2.0 is above observation_high=-2.0"),
    "eval: NaN weights": (lambda f: ["eval", "--game-from", policy(corpus.nan_weights)(f), "--agents",
                                     f"ppo:{f / 'crafted.zip'},random", *EVAL], "holds NaN or infinite numbers"),
}


def run_parlor(argv: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "parlor.training", *argv], cwd=corpus.ROOT, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONWARNINGS": "ignore"})


def run_in_process(argv: list[str], capsys: pytest.CaptureFixture[str]) -> subprocess.CompletedProcess:
    """``parlor ARGV`` through :func:`parlor.cli.main` in this process, as :func:`run_parlor` reports it."""
    from parlor.cli import main

    capsys.readouterr()
    status = main(argv)
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(argv, status, out, err)


def check_bad_input(tmp_path: Path, case: str, run: Callable[[list[str]], subprocess.CompletedProcess]) -> str:
    """Run ``case`` with ``run`` and check it ends in one line, exit status 2, nothing made; the line."""
    make, words = CASES[case]
    out = tmp_path / "made_by_parlor"
    before = sorted(p.name for p in tmp_path.iterdir())
    argv = [a.replace("{out}", str(out)) for a in make(tmp_path)]
    made = sorted(p.name for p in tmp_path.iterdir())
    done = run(argv)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(f"parlor {argv[0]}: ") and words in lines[0], lines[0]
    assert len(lines[0]) < 600, lines[0]  # a value is shown briefly, whatever its size
    assert not out.exists()  # no run folder, no copy
    assert sorted(p.name for p in tmp_path.iterdir()) == made and set(before) <= set(made)
    assert not Path("/tmp/parlor-yaml-ran").exists()
    return lines[0].replace(str(tmp_path), "<tmp>")


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_is_one_line_exit_2_and_no_folder(tmp_path: Path, case: str, capsys) -> None:
    check_bad_input(tmp_path, case, lambda argv: run_in_process(argv, capsys))


# one case of each command: the console's own process prints what main() printed
@pytest.mark.parametrize("case", ["eval --games 10^20", "train: a folder", "play --seed -5", "convert to a folder",
                                  "shield: observation_low > high"])
def test_the_command_line_in_its_own_process_prints_the_same_line(tmp_path: Path, case: str, capsys) -> None:
    (tmp_path / "child").mkdir()
    (tmp_path / "here").mkdir()
    assert check_bad_input(tmp_path / "child", case, run_parlor) == \
        check_bad_input(tmp_path / "here", case, lambda argv: run_in_process(argv, capsys))


def test_force_leaves_a_folder_that_is_not_an_evaluation_untouched(tmp_path: Path) -> None:
    argv = CASES["eval --force on a folder of mine"][0](tmp_path)
    assert run_parlor(argv).returncode == 2
    assert (tmp_path / "out" / "results.csv").read_text() == "my own results\n"
    assert (tmp_path / "out" / "config.yaml").read_text() == "mine: true\n"


def test_a_parlor_bug_keeps_its_traceback(tmp_path: Path) -> None:
    """Only user input is one line: any other exception (here a crashing agent class) shows its traceback."""
    done = run_parlor(["eval", "tonk_v0", "--agents", "tests.fuzz.crashing:CrashingAgent,random", "--games", "2",
                       "--out", str(tmp_path / "run"), "--quiet", "--no-plot"])
    assert done.returncode == 1 and "Traceback" in done.stderr and "ZeroDivisionError" in done.stderr


@pytest.mark.parametrize("command", ["eval", "play"])
def test_a_value_error_bug_while_planning_keeps_its_traceback(tmp_path: Path, command: str) -> None:
    """A ValueError that is no ConfigError is a bug, not bad input: eval and play do not make it one line."""
    args = (["eval", "tonk_v0", "--agents", "tests.fuzz.crashing:BrokenAtBirth,random", "--games", "2",
             "--out", str(tmp_path / "run"), "--quiet", "--no-plot"] if command == "eval"
            else ["play", "tonk_v0", "--vs", "tests.fuzz.crashing:BrokenAtBirth"])
    done = run_parlor(args)
    assert done.returncode == 1 and "Traceback" in done.stderr and "a bug in an agent's constructor" in done.stderr
    assert not (tmp_path / "run").exists()


def test_messages_quote_file_content_briefly_and_escaped(tmp_path: Path) -> None:
    config = {"env": "tonk_v0", "agents": ["random"], "games": "\x1b]0;pwned\x07" + "x" * 100_000}
    done = run_parlor(["eval", "--config", yaml_file(tmp_path, json.dumps(config)), *EVAL[2:],
                       "--out", str(tmp_path / "o")])
    assert done.returncode == 2 and "\x1b" not in done.stderr and "\x07" not in done.stderr
    assert len(done.stderr) < 400, done.stderr


def test_a_read_only_destination_is_one_line_and_leaves_the_old_file(tmp_path: Path, monkeypatch, capsys) -> None:
    import errno

    from parlor.cli import main
    from parlor.envs.engine import files

    dest = tmp_path / "copy.zip"
    dest.write_bytes(b"old")

    def read_only(path, write):
        raise OSError(errno.EROFS, "Read-only file system", str(path))
    monkeypatch.setattr(files, "replace_atomically", read_only)
    assert main(["shield", str(corpus.SHIPPED), str(dest), "--clear"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == [f"parlor shield: {dest}: cannot be written (Read-only file system); nothing was changed"]
    assert dest.read_bytes() == b"old"


def test_a_value_in_a_message_is_brief() -> None:
    from parlor.envs.engine.config import check_int
    from parlor.envs.engine.game import ConfigError, shown

    nested: list = []
    for _ in range(10_000):
        nested = [nested, "x" * 1000]
    with pytest.raises(ConfigError) as info:
        check_int("games", nested, 1)
    assert len(str(info.value)) < 200
    assert len(shown("y" * 10**6)) <= 100 and len(shown(10**4000)) <= 100
