"""The ``parlor`` command line: list, demo and bench run end to end."""
from __future__ import annotations

import subprocess
import sys

from parlor import envs
from parlor.cli import SUBCOMMANDS, build_parser, main


def test_every_subcommand_is_in_the_help() -> None:
    help_text = build_parser().format_help()
    for name in SUBCOMMANDS:
        assert name in help_text


def test_list_prints_every_registered_env(capsys) -> None:
    assert main(["list", "--presets"]) == 0
    out = capsys.readouterr().out
    for name in envs.ENVS:
        assert name in out


def test_demo_evaluates_the_shipped_ofc_policy(tmp_path, capsys) -> None:
    # the quick training run of the demo is the smoke test of tests/training/learning/test_train.py
    import json

    from parlor.training.cli.demo import SHIPPED_POLICY

    previous = tmp_path / "eval"  # a previous demo's evaluation: replaced
    previous.mkdir()
    for name, text in {"config.yaml": "env: ofc_v0\n", "episodes.jsonl": "", "results.json": "{}",
                       "command.txt": "parlor eval --game-from x.zip --agents random --games 2\n"}.items():
        (previous / name).write_text(text)
    assert main(["demo", "--skip-training", "--games", "2", "--workers", "1", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"ppo:{SHIPPED_POLICY}" in out and "heuristic" in out and "random" in out
    results = json.loads((tmp_path / "eval" / "results.json").read_text())
    assert [a["agent"] for a in results["agents"]] == ["ofc_pineapple", "heuristic", "random"]  # a name, not a path
    assert any((tmp_path / "eval").glob("*.png"))


def test_bench_prints_reference_and_every_env(capsys) -> None:
    assert main(["bench", "--seconds", "0.05", "--skip-hands"]) == 0
    out = capsys.readouterr().out
    assert "texas_holdem_v4" in out
    for name in envs.ENVS:
        assert name in out
    assert "SLOW" not in out and "target" not in out  # ratios to the reference, no verdicts (issue 36)


def test_console_script_module_runs() -> None:
    done = subprocess.run([sys.executable, "-m", "parlor.training", "list"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_a_command_parses_the_same_with_only_its_own_arguments() -> None:
    # build_parser(argv) adds only the arguments of the subcommand argv runs (main parses with it)
    for argv in (["eval", "ofc_v0", "--agents", "heuristic,random", "--games", "4", "--workers", "2"],
                 ["train", "configs/ofc_pineapple.yaml", "--total-steps", "64"],
                 ["bench", "--eval-workers", "1,2", "--rounds", "2"], ["list", "--presets"]):
        assert vars(build_parser(argv).parse_args(argv)) == vars(build_parser().parse_args(argv)), argv


def test_help_without_a_command_lists_every_subcommand() -> None:
    help_text = build_parser(["--help"]).format_help()
    for name, (_, text) in SUBCOMMANDS.items():
        assert name in help_text and text[:30] in " ".join(help_text.split())


def test_eval_does_not_import_the_training_stack() -> None:
    # the modules of the other subcommands (train's learner, bench's benchmarks) are a serial
    # second of CPU ahead of every `parlor eval --workers N` (issue 33)
    code = ("import sys\nfrom parlor.cli import main\n"
            "try:\n    main(['eval', '--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith(('parlor.training.learning', "
            "'parlor.training.benchmarks', 'parlor.training.cli.train', 'parlor.training.cli.bench', 'gymnasium'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout[-500:]


def _eval_process(out, call: str) -> subprocess.CompletedProcess:
    """A process that runs a 2-game ``parlor eval`` into ``out`` with ``call``, an exit hook and an
    object whose finalizer only the interpreter's teardown runs."""
    code = ("import atexit, sys\nfrom parlor.cli import main\n"
            "class Freed:\n    def __del__(self):\n        print('teardown', flush=True)\n"
            "kept = Freed()\natexit.register(lambda: print('exit hook'))\n"
            f"sys.argv[1:] = ['eval', 'tonk_v0', '--agents', 'heuristic,random', '--games', '2', '--quiet', "
            f"'--no-plot', '--out', {str(out)!r}]\n{call}\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def test_a_finished_eval_ends_its_process_without_the_teardown(tmp_path) -> None:
    # the console script (main() without argv) owns the process: a finished eval runs the exit
    # hooks and flushes its output, then ends without freeing every module (a CPU-second with torch)
    done = _eval_process(tmp_path / "a", "sys.exit(main())")
    assert done.returncode == 0, done.stderr
    assert "run folder:" in done.stdout and "exit hook" in done.stdout and "teardown" not in done.stdout
    assert (tmp_path / "a" / "results.json").is_file()
    # called with its arguments, main returns them their status and the interpreter ends as usual
    done = _eval_process(tmp_path / "b", "sys.exit(main(sys.argv[1:]))")
    assert done.returncode == 0, done.stderr
    assert "exit hook" in done.stdout and "teardown" in done.stdout
