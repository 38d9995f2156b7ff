"""Issue 36.6: one progress bar for training, sb3's and RLlib's alike (``callbacks.step_bar``):
the run's steps of ``total_steps``, a resumed run starting where it is; and a warm-started
run evaluates its network before the warm start (the baseline ``untrained``)."""
from __future__ import annotations

import ast
import csv
import importlib.util
from dataclasses import replace
from pathlib import Path

import yaml

from parlor.training.learning import callbacks
from parlor.training.learning.configs import parse_config
from parlor.training.learning.train import train, write_run_files
from tests.training.scripted import KUHN, register

register()
CONFIG = parse_config(yaml.safe_load(KUHN))


class Bar:
    """What the trainer does with the bar it is given (tqdm's update/close), recorded."""

    def __init__(self, total: int, done: int):
        self.total, self.n, self.closed = total, done, False

    def update(self, k: int) -> None:
        self.n += k

    def close(self) -> None:
        self.closed = True


def spy_bars(monkeypatch) -> list:
    bars: list = []
    real = callbacks.step_bar

    def spy(config, done, enabled=True):
        real(config, done, enabled=False).close()  # the real one builds
        bars.append((config.total_steps, done, enabled, Bar(config.total_steps, done)))
        return bars[-1][-1]

    monkeypatch.setattr(callbacks, "step_bar", spy)
    return bars


def test_sb3_training_counts_the_runs_steps_on_the_one_bar(tmp_path: Path, monkeypatch) -> None:
    bars = spy_bars(monkeypatch)
    run = tmp_path / "run"
    run.mkdir()
    write_run_files(run, CONFIG, KUHN, "pytest")
    train(CONFIG, run, progress_bar=True, log=lambda *_: None)
    train(replace(CONFIG, total_steps=384), run, resume=True, progress_bar=False, log=lambda *_: None)
    (total, done, enabled, first), (total2, done2, enabled2, second) = bars
    assert (total, done, enabled, first.n, first.closed) == (256, 0, True, 256, True)
    assert (total2, done2, enabled2, second.n, second.closed) == (384, 256, False, 384, True)  # resumed: from there


def function_source(module: str, name: str) -> str:
    """The source of the top-level function ``name`` of ``module``, read without importing the
    module (rllib_train imports ray.rllib, which this test does not need)."""
    text = Path(importlib.util.find_spec(module).origin).read_text()
    [node] = [n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == name]
    return ast.get_source_segment(text, node)


def test_the_rllib_trainer_draws_the_same_bar() -> None:
    source = function_source("parlor.training.learning.rllib_train", "train")
    assert "step_bar(config, steps, progress_bar)" in source and "tqdm(" not in source


def test_a_warm_started_run_records_its_untrained_network_once(tmp_path: Path) -> None:
    config = replace(CONFIG, total_steps=128, pretrain=parse_config(yaml.safe_load(
        KUHN + "pretrain: {teacher: random, episodes: 4, epochs: 1}\n")).pretrain)
    run = tmp_path / "run"
    run.mkdir()
    write_run_files(run, config, KUHN, "pytest")
    said: list[str] = []
    train(config, run, progress_bar=False, log=said.append)
    train(replace(config, total_steps=256), run, resume=True, progress_bar=False, log=lambda *_: None)
    with open(run / "baselines.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["agent"] for r in rows].count(callbacks.UNTRAINED) == 1 and "random" in [r["agent"] for r in rows]
    with open(run / "eval.csv", newline="", encoding="utf-8") as fh:
        first = next(r for r in csv.DictReader(fh) if r["step"] == "0")
    untrained = next(r for r in rows if r["agent"] == callbacks.UNTRAINED)
    # the paired gain's mean is the difference of the means (same deals); its CI is its own
    gain = next(m for m in said if m.startswith("step         0: gain over the untrained network vs random: "))
    mean = float(gain.split(": ")[2].split(" +- ")[0])
    assert abs(mean - (float(first["mean"]) - float(untrained["mean"]))) < 1e-3
    assert gain.endswith(f"(paired, {CONFIG.eval.deals} deals)")
