"""``parlor bench --train``'s measuring parts: the method timers, CPU of other processes, the tables,
and one real SB3 row split into its parts (the speeds themselves are measured, not tested)."""
from __future__ import annotations

import os
import time
from dataclasses import replace

import pytest

from parlor.training.benchmarks.train_speed import (
    Row,
    alternated,
    breakdown,
    learner_bound,
    proc_cpu,
    report,
    round_ratios,
    rounds_report,
    timed_parts,
)


class Base:
    def inherited(self) -> int:
        return 1


class Worker(Base):
    def spin(self, seconds: float) -> str:
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            pass
        return "spun"

    def outer(self) -> str:
        return self.spin(0.02)


def test_timed_parts_add_each_calls_cpu_and_restore_the_methods() -> None:
    own_spin = Worker.__dict__["spin"]
    parts: dict[str, float] = {}
    with timed_parts([(Worker, "spin", "inner"), (Worker, "outer", "outer"), (Worker, "inherited", "base")], parts):
        worker = Worker()
        assert worker.outer() == "spun" and worker.spin(0.02) == "spun" and worker.inherited() == 1
    assert parts["inner"] >= 0.04 and parts["outer"] >= 0.02 and parts["inner"] > parts["outer"] / 2
    assert "base" in parts
    assert Worker.__dict__["spin"] is own_spin
    assert "inherited" not in Worker.__dict__  # the inherited method is the base's again


def test_proc_cpu_reads_this_process_and_skips_a_gone_one() -> None:
    if not os.path.exists(f"/proc/{os.getpid()}/stat"):
        pytest.skip("no /proc here")
    assert proc_cpu([os.getpid()]) > 0
    assert proc_cpu([2**22 + 7]) == 0.0


def test_report_gives_ratios_to_the_references_and_the_rest_of_a_step() -> None:
    one = Row("one", 100.0, 1.0, 0.5, {"env": 0.2, "opponents": 0.1, "policy forward": 0.1, "update": 0.05})
    two = Row("two", 200.0, 1.0, 0.5)
    lines = report([one, two], reference=one, cpu_reference=one)
    assert "2.00x" in lines[2] and "0.50x" in lines[2] and "SLOW" not in "".join(lines)
    table = breakdown([one, two])
    assert "two" not in table[1]  # only split rows have parts
    rest = next(line for line in table if line.startswith("the rest"))
    assert rest.split()[-1] == "1,500"  # (0.5 - 0.2 - 0.1 - 0.05) s over 100 steps, in us


def test_the_learner_bound_is_the_learners_own_cpu_per_step_against_one_envs() -> None:
    one = Row("sb3, 1 env", 1000.0, 1.0, 0.6, own_cpu=0.6)  # 600 us of CPU per step
    many = Row("sb3, 16 envs", 2000.0, 4.0, 1.2, own_cpu=0.3)  # the env processes' CPU is not the learner's
    lines = learner_bound([many], one)
    assert "sb3, 1 env's CPU per step" in lines[0]
    assert lines[1] == "  sb3, 16 envs: 150 us -> about 6,667 steps/s, 4.00x"
    assert learner_bound([], one) == []


def test_rounds_alternate_the_rows_and_compare_rows_of_one_round() -> None:
    order: list[str] = []
    speeds = iter([100.0, 150.0, 300.0, 200.0, 100.0, 120.0])  # a, b in round 0; b, a in 1; a, b in 2

    def make(label: str):
        def measure() -> Row:
            order.append(label)
            return Row(label, 1000.0, 1000.0 / next(speeds), 1.0)
        return measure

    rows = alternated([("a", make("a")), ("b", make("b"))], 3)
    assert order == ["a", "b", "b", "a", "a", "b"]
    assert [round(r, 6) for r in round_ratios(rows, "b", "a", cpu=False)] == [1.5, round(300 / 200, 6), 1.2]
    assert round_ratios(rows, "b", "a", cpu=True) == [1.0, 1.0, 1.0]  # 1 CPU-s per 1,000 steps in every row
    line = rounds_report(rows, [("b", "a", False)])[1]
    assert line.endswith("1.50x 1.50x 1.20x; median 1.50x") and "steps/s, b over a" in line


# parlor's lean acting pass and update, and sb3-contrib's (slow: test_rollout.py and test_update.py hold
# the two to the same training)
@pytest.mark.parametrize("stock", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_an_sb3_row_splits_a_real_training_step(stock: bool) -> None:
    pytest.importorskip("sb3_contrib")
    from parlor.training.benchmarks import scale
    from parlor.training.benchmarks.train_speed import PARTS, sb3_config, sb3_row
    from parlor.training.learning.opponents import PoolEntry
    from tests.training.scripted import register

    register()
    config = replace(scale.train_config("kuhn_test", {}, "sb3"), opponents=(PoolEntry("random"),))
    row = sb3_row(sb3_config(config, 1, "dummy"), 256, "kuhn", split=True, stock=stock)
    assert row.steps == 256 and row.rate > 0 and row.cpu > 0 and 0 < row.own_cpu <= row.cpu
    assert set(row.parts) == set(PARTS)  # every wrapped method was called: SB3 still has them
    assert row.parts["opponents"] <= row.parts["env"] and sum(row.parts[p] for p in PARTS if p != "opponents") < row.cpu


def test_an_rllib_row_collects_garbage_after_its_warm_up_not_while_measuring(monkeypatch) -> None:
    # the first RLlib row of a process otherwise pays, inside its measured updates, for full
    # collections of the objects RLlib's import and build made (docs/benchmarks.md, fourth pass)
    pytest.importorskip("ray.rllib", reason="the [scale] extra (ray[rllib]) is not installed")
    import gc

    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED

    from parlor.training.benchmarks import scale, train_speed
    from parlor.training.learning import rllib_train

    events = []

    class Algo:
        def train(self) -> dict:
            events.append("train")
            return {ENV_RUNNER_RESULTS: {NUM_ENV_STEPS_SAMPLED: 512}}

        def stop(self) -> None:
            events.append("stop")

    class Config:
        def build_algo(self) -> Algo:
            return Algo()

    monkeypatch.setattr(rllib_train, "ppo_config", lambda config: Config())
    monkeypatch.setattr(gc, "collect", lambda *args: events.append("collect") or 0)
    row = train_speed.rllib_row(scale.train_config("tonk_v0", {"num_players": 2}, "rllib", 0), 1024, "rllib")
    assert events == ["train", "collect", "train", "train", "stop"] and row.steps == 1024


def test_bench_train_bounds_the_rows_with_more_processes_than_cores(monkeypatch, capsys) -> None:
    # the wiring of `parlor bench --train`: the bound, from the sleeping row, where steps/s cannot tell
    pytest.importorskip("sb3_contrib")
    import argparse

    from parlor.training.benchmarks import train_speed
    from parlor.training.cli import bench

    def fake_row(config, steps, label, **kwargs) -> Row:  # learner CPU per step: 600 us for 1 env, else 150
        wait = config.vec_env_wait if config.vec_env == "subproc" else "none"
        own = 0.6 if config.n_envs == 1 else (0.15 if wait == "sleep" else 0.4)
        return Row(label, 1000.0, 1.0, own + 0.1 * (config.n_envs - 1), own_cpu=own)

    monkeypatch.setattr(train_speed, "sb3_row", fake_row)
    monkeypatch.setattr("parlor.training.learning.vec_env.usable_cores", lambda: 4)  # 2 envs fit, 16 do not
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(["--train", "tonk_v0", "--procs", "2,16", "--no-rllib", "--rounds", "0", "--steps", "1000"])
    assert bench.run_train(args) == 0
    out = capsys.readouterr().out
    bound = out[out.index("more env processes than cores here"):].strip().splitlines()
    assert "sb3, 1 env in this process's CPU per step" in bound[0] and len(bound) == 2  # 2 envs: measured, no bound
    assert bound[1].startswith("  sb3, 16 envs: 1 here + 15 in processes, sleeping")
    assert bound[1].endswith(": 150 us -> about 6,667 steps/s, 4.00x")
