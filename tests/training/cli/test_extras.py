"""A missing optional extra ends a command with one line naming the extra to install, before
any run folder is made; what does not need the extra still works without it."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from parlor.cli.extras import missing_extra

ROOT = Path(__file__).resolve().parents[3]
POLICY = ROOT / "agents" / "pretrained" / "ofc_pineapple.zip"
TRAIN_EXTRA = ["torch", "stable_baselines3", "sb3_contrib", "tensorboard", "matplotlib", "rich", "tqdm"]


def parlor_without(modules: list[str], argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``parlor ARGV`` in a Python where ``modules`` cannot be imported (as if not installed)."""
    code = ("import sys\n"
            f"for name in {modules!r}:\n"
            "    sys.modules[name] = None  # import fails with ModuleNotFoundError, find_spec finds nothing\n"
            "from parlor.cli import main\n"
            f"sys.exit(main({argv!r}))\n")
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=300)


def assert_one_line_naming(done: subprocess.CompletedProcess, extra: str) -> str:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert f"pip install 'parlor[{extra}]'" in lines[0]
    return lines[0]


def test_eval_of_a_policy_without_the_train_extra(tmp_path) -> None:
    done = parlor_without(TRAIN_EXTRA, ["eval", "--game-from", str(POLICY), "--agents", f"ppo:{POLICY},random",
                                        "--games", "2", "--no-plot"], tmp_path)
    assert_one_line_naming(done, "train")
    assert not (tmp_path / "runs").exists()


def test_eval_without_matplotlib_names_the_extra_or_no_plot(tmp_path) -> None:
    done = parlor_without(["matplotlib"], ["eval", "tonk_v0", "--agents", "random", "--games", "2"], tmp_path)
    line = assert_one_line_naming(done, "train")
    assert "matplotlib" in line and "--no-plot" in line
    assert not (tmp_path / "runs").exists()
    done = parlor_without(["matplotlib", "rich"], ["eval", "tonk_v0", "--agents", "random", "--games", "2",
                                                   "--no-plot", "--out", "run"], tmp_path)
    assert done.returncode == 0, done.stderr  # without rich: plain tables
    assert "random" in done.stdout and (tmp_path / "run" / "results.json").is_file()


def test_train_without_the_train_extra_makes_no_run_folder(tmp_path) -> None:
    config = str(ROOT / "configs" / "ofc_pineapple_quick.yaml")
    done = parlor_without(["sb3_contrib"], ["train", config, "--out", "runs"], tmp_path)
    assert "sb3-contrib" in assert_one_line_naming(done, "train")
    done = parlor_without(["tqdm"], ["train", config, "--out", "runs"], tmp_path)
    assert "--no-progress" in assert_one_line_naming(done, "train")
    assert not (tmp_path / "runs").exists()


def test_play_against_a_policy_and_bench_without_their_extras(tmp_path) -> None:
    done = parlor_without(TRAIN_EXTRA, ["play", "ofc_v0", "--option", "variant=pineapple", "--option", "features=true",
                                        "--vs", f"ppo:{POLICY}"], tmp_path)
    assert_one_line_naming(done, "train")
    done = parlor_without(["rlcard"], ["bench", "--seconds", "0.01", "--skip-hands"], tmp_path)
    assert "rlcard" in assert_one_line_naming(done, "dev")
    # the OFC advisors' bench: the policy workloads need the train extra (checked before any
    # measuring process starts); the others need neither it nor rlcard
    done = parlor_without(["sb3_contrib"], ["bench", "--ofc-advisors", "--workloads", "heuristic,ofc_pineapple"],
                          tmp_path)
    assert "sb3-contrib" in assert_one_line_naming(done, "train")


@pytest.mark.slow  # it measures (two more fresh interpreters); the checks before measuring are the test above
def test_the_ofc_advisors_bench_measures_without_rlcard_and_the_train_extra(tmp_path) -> None:
    done = parlor_without(["rlcard", "sb3_contrib"], ["bench", "--ofc-advisors", "--workloads", "heuristic",
                                                       "--rounds", "1", "--size", "0.02"], tmp_path)
    assert done.returncode == 0 and "heuristic" in done.stdout, done.stderr


def test_eval_ray_and_rllib_training_without_the_scale_extra_make_no_run_folder(tmp_path) -> None:
    done = parlor_without(["ray"], ["eval", "tonk_v0", "--agents", "random", "--games", "2", "--no-plot", "--ray"],
                          tmp_path)
    assert "parlor eval --ray needs ray" in assert_one_line_naming(done, "scale")
    done = parlor_without(["pyarrow"], ["train", str(ROOT / "configs" / "ofc_pineapple_rllib_quick.yaml"), "--out",
                                        "runs", "--no-progress"], tmp_path)
    assert "backend: rllib needs pyarrow" in assert_one_line_naming(done, "scale")
    done = parlor_without(["ray"], ["bench", "--scale", "tonk_v0"], tmp_path)
    assert "parlor bench --scale needs ray" in assert_one_line_naming(done, "scale")
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("err,message", [
    (ModuleNotFoundError("No module named 'torch'", name="torch"), "torch is not installed: pip install 'parlor[train]'"),
    (ModuleNotFoundError("No module named 'resvg_py'", name="resvg_py"), "resvg-py is not installed"),
    (ImportError("pictures need the pictures extra: pip install 'parlor[pictures]'"), "pip install 'parlor[pictures]'"),
    (ModuleNotFoundError("No module named 'ray.rllib'", name="ray.rllib"), "ray is not installed: pip install 'parlor[scale]'"),
    (ModuleNotFoundError("No module named 'mypkg'", name="mypkg"), None),
])
def test_missing_extra_names_the_extra_of_known_modules_only(err, message) -> None:
    got = missing_extra(err)
    assert got is None if message is None else message in got
