"""Issue 23.3: checkpoints are written atomically; --resume restores weights, optimizer state and
counters from the newest intact checkpoint (saying so when it passes over a torn one); a resumed
learning curve has one row per step and opponent; the quick configs checkpoint before they end."""
from __future__ import annotations

import csv
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from parlor.agents.policy import PolicyMismatchError, read_signature
from parlor.training.learning.checkpoints import LATEST, newest_intact, restore, step_files, write_checkpoint
from parlor.training.learning.configs import load_config, parse_config
from parlor.training.learning.train import make_model, make_vec_env, policy_game, train, write_run_files
from tests.training.scripted import KUHN, register

register()
ROOT = Path(__file__).resolve().parents[3]
# one xdist worker for the module: its module fixture (a whole run) is built once, not once per worker
pytestmark = pytest.mark.xdist_group("test_checkpoints")
CONFIG = parse_config(yaml.safe_load(KUHN.replace("checkpoint_every: 128", "checkpoint_every: 64")
                                     .replace("eval: {every: 128", "eval: {every: 64")))


def quiet(*_: object) -> None:
    pass


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    """A 256-step run with checkpoints at 64, 128, 192 and 256."""
    run_dir = tmp_path_factory.mktemp("finished") / "run"
    run_dir.mkdir()
    write_run_files(run_dir, CONFIG, KUHN, "pytest")
    train(CONFIG, run_dir, progress_bar=False, log=quiet)
    return run_dir


@pytest.fixture
def run(finished_run: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(finished_run, tmp_path / "run"))


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def curve_rows(run_dir: Path) -> list[tuple[int, str, str]]:
    with open(run_dir / "eval.csv", newline="") as fh:
        return [(int(r["step"]), r["agent"], r["opponent"]) for r in csv.DictReader(fh)]


def test_the_run_keeps_its_checkpoints(run: Path) -> None:
    names = [p.name for p in step_files(run / "checkpoints")]
    assert names == [f"step_{s:09d}.zip" for s in (64, 128, 192, 256)]
    assert (run / "checkpoints" / LATEST).read_bytes() == (run / "checkpoints" / names[-1]).read_bytes()
    assert read_signature(run / "checkpoints" / LATEST)["checkpoint"]["n_updates"] > 0


def test_a_torn_latest_resumes_from_the_previous_checkpoint_and_says_so(run: Path) -> None:
    truncate(run / "checkpoints" / LATEST)
    messages: list[str] = []
    result = train(replace(CONFIG, total_steps=384), run, resume=True, progress_bar=False, log=messages.append)
    assert result.num_timesteps == 384
    said = [m for m in messages if "damaged" in m]
    assert len(said) == 1 and "latest.zip" in said[0] and "resuming from step_000000256.zip" in said[0], messages
    rows = curve_rows(run)
    assert len(rows) == len(set(rows)) and sorted({s for s, _, _ in rows}) == [0, 64, 128, 192, 256, 320, 384]


def test_when_the_newest_checkpoints_are_torn_the_run_goes_back_and_replays_without_duplicate_rows(run: Path) -> None:
    for name in (LATEST, "step_000000256.zip", "step_000000192.zip"):
        truncate(run / "checkpoints" / name)
    messages: list[str] = []
    result = train(replace(CONFIG, total_steps=384), run, resume=True, progress_bar=False, log=messages.append)
    assert result.num_timesteps == 384
    assert any("resuming from step_000000128.zip (step 128)" in m for m in messages), messages
    assert any("dropped 2 evaluation rows after step 128" in m for m in messages), messages  # 192 and 256, played again
    rows = curve_rows(run)
    assert len(rows) == len(set(rows)), rows
    assert sorted({s for s, _, _ in rows}) == [0, 64, 128, 192, 256, 320, 384]
    with open(run / "train_curve.csv", newline="") as fh:
        steps = [int(r["step"]) for r in csv.DictReader(fh)]
    assert steps == sorted(steps) and len(steps) == len(set(steps))
    assert read_signature(run / "model.zip")["num_timesteps"] == 384


def test_no_intact_checkpoint_is_an_error_naming_the_damaged_files(run: Path) -> None:
    for path in (run / "checkpoints").iterdir():
        truncate(path)
    with pytest.raises(FileNotFoundError, match=r"no intact checkpoint.*latest.zip: not a readable policy zip"):
        train(CONFIG, run, resume=True, progress_bar=False, log=quiet)


def test_a_checkpoint_of_other_options_is_an_error_not_damage(run: Path) -> None:
    with pytest.raises(PolicyMismatchError, match="option ante"):
        newest_intact(run, policy_game(replace(CONFIG, options={"ante": 2})), quiet)


def test_restore_puts_back_weights_optimizer_state_and_counters(tmp_path: Path) -> None:
    import torch

    config = replace(CONFIG, total_steps=128)
    vec_env = make_vec_env(config)
    try:
        model = make_model(config, vec_env, tmp_path)
        model.learn(128)
        game = policy_game(config)
        path = write_checkpoint(model, tmp_path, game)
        fresh = make_model(config, vec_env, tmp_path)
        restore(fresh, newest_intact(tmp_path, game, quiet))
    finally:
        vec_env.close()
    assert path.name == "step_000000128.zip"
    assert (fresh.num_timesteps, fresh._n_updates) == (model.num_timesteps, model._n_updates) == (128, 1)
    for name, tensor in model.policy.state_dict().items():
        assert torch.equal(fresh.policy.state_dict()[name], tensor), name
    before, after = model.policy.optimizer.state_dict(), fresh.policy.optimizer.state_dict()
    assert before["param_groups"] == after["param_groups"] and before["state"].keys() == after["state"].keys()
    for index, state in before["state"].items():
        for key, value in state.items():
            assert torch.equal(after["state"][index][key], value), (index, key)


def test_an_interrupted_checkpoint_write_leaves_the_previous_one_whole(run: Path, monkeypatch) -> None:
    latest = run / "checkpoints" / LATEST
    before = latest.read_bytes()
    config = replace(CONFIG, total_steps=64)
    vec_env = make_vec_env(config)
    try:
        model = make_model(config, vec_env, run)
        model.num_timesteps = 999

        def crash(fd: int) -> None:
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(os, "fsync", crash)
        with pytest.raises(OSError):
            write_checkpoint(model, run, policy_game(config))
    finally:
        vec_env.close()
    assert latest.read_bytes() == before
    assert not (run / "checkpoints" / "step_000000999.zip").exists()
    assert not [p for p in (run / "checkpoints").iterdir() if p.name.startswith(".")]  # no temporary file left


@pytest.mark.parametrize("path", sorted((ROOT / "configs").glob("*_quick.yaml")), ids=lambda p: p.stem)
def test_quick_configs_checkpoint_before_they_end(path: Path) -> None:
    config = load_config(str(path))
    assert config.checkpoint_every < config.total_steps  # a run stopped late can be resumed
