"""Expert iteration (``distill:``): a tiny end-to-end run whose policy ``parlor eval`` loads,
the learner agreeing with the teacher more after fitting, the same labels from 1 or 2
workers (and Ray), resuming an interrupted labelling round, and strict config errors."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from parlor.envs.engine.game import ConfigError
from parlor.training.learning import labelling
from parlor.training.learning.configs import load_config, parse_config
from parlor.training.learning.distill import label_round, round_folder
from parlor.training.learning.train import train, write_run_files

ROOT = Path(__file__).resolve().parents[3]
QUICK = ROOT / "configs" / "ofc_expert_distill_quick.yaml"
QUIET = lambda *_: None  # noqa: E731


def quick(**distill):
    config = load_config(str(QUICK))
    return replace(config, distill=replace(config.distill, **distill)) if distill else config


def learner_bytes(tmp_path: Path, config) -> bytes:
    """A fresh (untrained, seeded) learner network of ``config`` as policy-file bytes."""
    from parlor.agents.policy import save_policy
    from parlor.training.learning.train import make_model, make_vec_env, policy_game

    vec_env = make_vec_env(replace(config, n_envs=1))
    try:
        model = make_model(config, vec_env, tmp_path)
        return save_policy(model, tmp_path / "learner.zip", policy_game(config)).read_bytes()
    finally:
        vec_env.close()


def arrays_equal(a: dict, b: dict) -> None:
    assert sorted(a) == sorted(b)
    for key in a:
        assert np.array_equal(a[key], b[key]), key


@pytest.mark.slow  # a whole distill run (labels, cloning, PPO); the labelling resume test below is the fast check
def test_quick_run_distills_then_ppo_and_exports_a_policy_parlor_eval_loads(tmp_path: Path) -> None:
    from parlor.cli import main
    from parlor.cli.options import option_flags

    config = quick()
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    write_run_files(run_dir, config, QUICK.read_text(), "pytest")
    result = train(config, run_dir, progress_bar=False, log=QUIET)
    assert result.num_timesteps >= config.total_steps
    summary = json.loads((run_dir / "distill" / "summary.json").read_text())
    assert [r["player"] for r in summary["rounds"]] == ["teacher", "learner"]
    first, second = summary["rounds"]
    assert first["played_teacher_move"] == 1.0  # round 0: the teacher's own play (behaviour cloning)
    assert second["played_teacher_move"] < 1.0  # round 1: the learner plays, the teacher only labels
    assert second["states_so_far"] == first["states"] + second["states"]
    for r in summary["rounds"]:  # the fit taught it the teacher's moves on the states it visits
        assert r["agreement_after_fit"] > r["agreement_before_fit"] + 0.1, r
    times = json.loads((run_dir / "times.json").read_text())
    assert set(times) == {"distill_labels", "distill_fit", "ppo"} and all(v > 0 for v in times.values())
    options = option_flags(config.options)
    for policy in (run_dir / "distill" / "policy.zip", run_dir / "policy.zip"):
        out = tmp_path / f"eval-{policy.parent.name}"
        assert main(["eval", "ofc_v0", *options, "--agents", f"ppo:{policy},heuristic", "--games", "2",
                     "--out", str(out), "--quiet"]) == 0
        assert (out / "results.json").is_file()


@pytest.mark.slow  # two labelling rounds, one with a worker pool
def test_labels_are_the_same_with_one_or_two_workers(tmp_path: Path) -> None:
    config = quick(episodes=4, chunk_episodes=1, opponents=None)  # the run's pool: heuristic and 'self'
    learner = learner_bytes(tmp_path, config)
    one, labelled = label_round(config, tmp_path / "one", 1, learner, QUIET)
    two, _ = label_round(replace(config, distill=replace(config.distill, workers=2)), tmp_path / "two", 1, learner, QUIET)
    assert labelled == 4 and len(one["labels"]) > 4 * 10
    arrays_equal(one, two)
    assert (one["played"] != one["labels"]).any()  # the learner played (an untrained one disagrees)
    for a, b in zip(sorted((tmp_path / "one").rglob("*.npz")), sorted((tmp_path / "two").rglob("*.npz"))):
        arrays_equal(dict(np.load(a)), dict(np.load(b)))


@pytest.mark.xdist_group("ray")
def test_labels_on_ray_equal_one_worker(tmp_path: Path, ray_cluster) -> None:
    config = quick(episodes=4, chunk_episodes=2)
    learner = learner_bytes(tmp_path, config)
    one, _ = label_round(config, tmp_path / "one", 1, learner, QUIET)
    ray, _ = label_round(replace(config, distill=replace(config.distill, ray="local")), tmp_path / "ray", 1, learner, QUIET)
    arrays_equal(one, ray)


def test_an_interrupted_labelling_round_resumes_without_relabelling(tmp_path: Path, monkeypatch) -> None:
    config = quick(episodes=8, chunk_episodes=2)
    whole, _ = label_round(config, tmp_path / "whole", 0, None, QUIET)
    real_write = labelling.write_chunk
    written: list[Path] = []

    def write_then_die(path, arrays, meta):
        if len(written) == 2:
            raise KeyboardInterrupt  # killed after two of the four chunks
        real_write(path, arrays, meta)
        written.append(path)

    monkeypatch.setattr(labelling, "write_chunk", write_then_die)
    with pytest.raises(KeyboardInterrupt):
        label_round(config, tmp_path / "cut", 0, None, QUIET)
    monkeypatch.setattr(labelling, "write_chunk", real_write)
    assert len(list((round_folder(tmp_path / "cut", 0) / "labels").glob("*.npz"))) == 2
    messages: list[str] = []
    resumed, labelled = label_round(config, tmp_path / "cut", 0, None, messages.append)
    assert labelled == 2 and any("2 of 4 label chunks already on disk" in m for m in messages)
    arrays_equal(whole, resumed)
    again, labelled = label_round(config, tmp_path / "cut", 0, None, QUIET)  # all on disk: nothing is labelled
    assert labelled == 0
    arrays_equal(whole, again)
    damaged = labelling.chunk_path(round_folder(tmp_path / "cut", 0) / "labels", 1)
    damaged.write_bytes(damaged.read_bytes()[:100])  # a file torn by something else than our writer
    messages.clear()
    repaired, labelled = label_round(config, tmp_path / "cut", 0, None, messages.append)
    assert labelled == 1 and any("is damaged" in m for m in messages)
    arrays_equal(whole, repaired)
    # labels of another teacher in the folder are refused, not mixed in
    other = replace(config, distill=replace(config.distill, teacher="random"))
    with pytest.raises(ConfigError, match="teacher"):
        label_round(other, tmp_path / "cut", 0, None, QUIET)


@pytest.mark.slow  # a distill run, killed and resumed
def test_a_run_killed_while_distilling_resumes_from_its_files(tmp_path: Path, monkeypatch) -> None:
    from parlor.training.learning import distill

    config = replace(quick(rounds=2, episodes=4, chunk_episodes=2), total_steps=128)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    write_run_files(run_dir, config, QUICK.read_text(), "pytest")
    real_label_round = distill.label_round

    def die_in_round_1(config, run_dir, round_, learner, log):
        if round_ == 1:
            raise KeyboardInterrupt
        return real_label_round(config, run_dir, round_, learner, log)

    monkeypatch.setattr(distill, "label_round", die_in_round_1)
    with pytest.raises(KeyboardInterrupt):
        train(config, run_dir, progress_bar=False, log=QUIET)
    monkeypatch.setattr(distill, "label_round", real_label_round)
    round0 = (round_folder(run_dir, 0) / "policy.zip").read_bytes()
    messages: list[str] = []
    train(config, run_dir, resume=True, progress_bar=False, log=messages.append)
    assert any("round 0: done before" in m for m in messages)
    assert (round_folder(run_dir, 0) / "policy.zip").read_bytes() == round0  # not fitted again
    assert (round_folder(run_dir, 1) / "summary.json").is_file() and (run_dir / "policy.zip").is_file()


def test_decisions_cut_each_labelled_episode_and_leave_returns_unknown(tmp_path: Path) -> None:
    config = quick(episodes=4, chunk_episodes=2, decisions=3)
    cut, _ = label_round(config, tmp_path / "cut", 0, None, QUIET)
    whole, _ = label_round(quick(episodes=4, chunk_episodes=2), tmp_path / "whole", 0, None, QUIET)
    assert np.array_equal(np.bincount(cut["episodes"]), [3, 3, 3, 3])  # the first three decisions of each
    assert np.isnan(cut["returns"]).all() and np.isnan(cut["raw_returns"]).all()  # not played out
    firsts = np.concatenate([np.flatnonzero(whole["episodes"] == e)[:3] for e in range(4)])
    for key in ("observations", "masks", "labels", "played"):  # the same states and labels as played in full
        assert np.array_equal(cut[key], whole[key][firsts]), key
    meta = json.loads(str(np.load(labelling.chunk_path(round_folder(tmp_path / "cut", 0) / "labels", 0))["meta"]))
    assert meta["decisions"] == 3
    with pytest.raises(ConfigError, match="decisions"):  # a resumed run with another cut is refused
        label_round(quick(episodes=4, chunk_episodes=2, decisions=2), tmp_path / "cut", 0, None, QUIET)


def test_init_then_distill_fits_the_init_network_and_skips_unknown_returns(tmp_path: Path, monkeypatch) -> None:
    """The rounds start from ``init``'s weights, and cut episodes' NaN returns leave the value
    head out of the fit instead of poisoning the weights."""
    import torch

    from parlor.agents.policy import load_weights_into
    from parlor.training.learning import warm_start
    from parlor.training.learning.train import make_model, make_vec_env, policy_game

    source = tmp_path / "source"
    source.mkdir()
    init = source / "learner.zip"
    init.write_bytes(learner_bytes(source, replace(quick(), seed=7)))  # not the run's own fresh network
    config = replace(quick(rounds=1, episodes=4, chunk_episodes=2, decisions=3, epochs=2), init=str(init),
                     total_steps=1)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    write_run_files(run_dir, config, QUICK.read_text(), "pytest")
    fitted_from: list[list[torch.Tensor]] = []
    real_clone = warm_start.clone

    def record_then_clone(policy, *args, **kwargs):
        fitted_from.append([p.detach().clone() for p in policy.parameters()])
        return real_clone(policy, *args, **kwargs)

    monkeypatch.setattr(warm_start, "clone", record_then_clone)
    train(config, run_dir, progress_bar=False, log=QUIET)
    first = json.loads((round_folder(run_dir, 0) / "summary.json").read_text())
    assert first["mean_return"] is None and np.isfinite(first["fit"]["cross_entropy"])
    vec_env = make_vec_env(replace(config, n_envs=1))
    try:
        model = make_model(config, vec_env, tmp_path)
        load_weights_into(model.policy, init, policy_game(config))
        assert len(fitted_from) == 1
        assert all(torch.equal(a, b) for a, b in zip(fitted_from[0], model.policy.parameters()))
        load_weights_into(model.policy, round_folder(run_dir, 0) / "policy.zip", policy_game(config))
        assert all(torch.isfinite(p).all() for p in model.policy.parameters())
    finally:
        vec_env.close()


BASE = {"env": "ofc_v0", "options": {"variant": "pineapple"}, "opponents": [{"agent": "heuristic"}]}


@pytest.mark.parametrize("distill, message", [
    ({"rounds": 3}, "distill: .*teacher"),
    ({"teacher": "heuristic", "rounds": 0}, "distill.rounds=0"),
    ({"teacher": "heuristic", "teacher_mix": 1.5}, "distill.teacher_mix=1.5"),
    ({"teacher": "heuristic", "bogus": 1}, "bogus"),
    ({"teacher": "self"}, "distill.teacher: 'self'"),
    ({"teacher": "heuristic", "opponents": "heuristic"}, "distill.opponents="),
    ({"teacher": "heuristic", "workers": 2, "ray": "local"}, "distill.workers=2 and distill.ray"),
    ({"teacher": "heuristic", "chunk_episodes": 0}, "distill.chunk_episodes=0"),
    ({"teacher": "heuristic", "decisions": 0}, "distill.decisions=0"),
])
def test_bad_distill_settings_are_one_line_errors_naming_the_field(distill, message) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config({**BASE, "distill": distill})


def test_distill_is_one_warm_start_and_runs_with_sb3() -> None:
    with pytest.raises(ConfigError, match="distill and pretrain are two warm starts"):
        parse_config({**BASE, "distill": {"teacher": "heuristic"}, "pretrain": {"teacher": "heuristic"}})
    assert parse_config({**BASE, "distill": {"teacher": "heuristic"}, "init": "a.zip"}).init == "a.zip"
    with pytest.raises(ConfigError, match="backend: sb3"):
        parse_config({**BASE, "distill": {"teacher": "heuristic"}, "backend": "rllib"})


def test_cli_checks_the_teacher_and_the_label_workers_before_making_a_folder(tmp_path: Path, capsys) -> None:
    from parlor.cli import main

    bad = tmp_path / "bad.yaml"
    bad.write_text(QUICK.read_text().replace("teacher: heuristic", "teacher: nobody"))
    out = tmp_path / "runs"
    assert main(["train", str(bad), "--out", str(out), "--no-progress"]) == 2
    assert "distill.teacher: unknown agent 'nobody'" in capsys.readouterr().err
    assert main(["train", str(QUICK), "--out", str(out), "--workers", "2", "--ray", "local", "--no-progress"]) == 2
    assert "give one of them" in capsys.readouterr().err
    assert main(["train", str(QUICK), "--out", str(out), "--workers", "0", "--no-progress"]) == 2
    assert "--workers 0: give a number of processes >= 1" in capsys.readouterr().err
    plain = tmp_path / "plain.yaml"
    plain.write_text("env: ofc_v0\noptions: {variant: pineapple}\n")
    assert main(["train", str(plain), "--out", str(out), "--workers", "2", "--no-progress"]) == 2
    assert "distill section" in capsys.readouterr().err
    assert not out.exists()
