"""Expert iteration (DAgger): the learner is taught by a teacher agent on the states it visits.

A training config with a ``distill`` section runs this stage before PPO
(:func:`parlor.training.learning.train.train`, in place of the ``pretrain`` warm start)::

    distill:
      teacher: expert            # any agent name (expert, search:2, heuristic, a module:Class)
      rounds: 4                  # labelling + fitting rounds
      episodes: 2000             # episodes labelled per round
      chunk_episodes: 25         # episodes per labelling job (one file each)
      teacher_mix: 0.0           # rounds >= 1: chance that the teacher's move is played (DAgger's beta)
      opponents: null            # the labelling pool; null: the run's opponents ('self' = the round's learner)
      deterministic: true        # the learner plays its most probable action while labelled
      decisions: null            # or N: label the learner's first N decisions of each episode, then end it
      epochs: 10                 # fitting, per round, on every label so far
      batch_size: 512
      learning_rate: 1.0e-3
      workers: 1                 # label in a pool of processes (parlor train --workers N)
      ray: null                  # or as Ray tasks on a cluster (parlor train --ray ADDRESS)

Round 0: the teacher plays the learner's seat against the opponents and its moves are the
labels (behaviour cloning). Round r >= 1: the learner of round r-1 plays and the teacher
labels every state it reaches, so the learner learns what to do in the positions its own
mistakes lead to. After each round's labels the network that PPO trains (the run's
MaskablePPO policy, ``features`` as the env options say) is fitted to *all* labels so far by
masked cross-entropy plus ``vf_coef`` x the value error of the return (the warm start's
:func:`~parlor.training.learning.warm_start.clone`). PPO then continues from the result
against the run's opponents (e.g. ``self`` and the teacher).

Run folder: ``distill/round_NN/labels/chunk_NNNNN.npz`` (:mod:`.labelling`, written as the
jobs finish), ``distill/round_NN/policy.zip`` (the learner after the round) and
``distill/round_NN/summary.json`` (written last: the round is done; label and fit seconds,
agreement with the teacher on the round's states before and after fitting, the labelled
episodes' mean return), ``distill/policy.zip`` (the distilled policy, before PPO: a policy
file that ``parlor eval --agents ppo:...`` loads) and ``distill/summary.json``; the run's
``times.json`` has the seconds per stage. A killed run resumed with ``parlor train --resume``
skips finished rounds and labelled chunks. Labels are the same for a seed whatever the
workers (:mod:`.labelling`).

``decisions`` spends the teacher on one part of the game: with ``decisions: 5`` on a
single-hand Pineapple env, only the openings are labelled (the five cards of the first
turn; the episode ends there). With ``init: POLICY`` in the config the rounds fit the
network of that policy file rather than a new one: a shipped policy is taught the part
of the game that its planner does not play (configs/ofc_expert_openings.yaml).
"""
from __future__ import annotations

import functools
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from parlor.envs.engine.config import check_bool, check_int, check_number
from parlor.envs.engine.files import atomic_write_text
from parlor.envs.engine.game import ConfigError
from parlor.training.learning.opponents import SELF, PoolEntry

if TYPE_CHECKING:
    from parlor.training.learning.configs import TrainConfig

FOLDER = "distill"
TIMES = "times.json"  # seconds per stage of the run


@dataclass(frozen=True, slots=True, kw_only=True)
class DistillConfig:
    """Expert iteration before PPO (module docstring)."""

    teacher: str
    rounds: int = 3
    episodes: int = 200
    chunk_episodes: int = 20
    teacher_mix: float = 0.0
    opponents: tuple[PoolEntry, ...] | None = None
    deterministic: bool = True
    decisions: int | None = None
    epochs: int = 10
    batch_size: int = 512
    learning_rate: float = 1e-3
    workers: int = 1
    ray: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.teacher, str) or not self.teacher.strip():
            raise ConfigError(f"distill.teacher={self.teacher!r} must be an agent name, e.g. expert or heuristic")
        if self.teacher == SELF:
            raise ConfigError("distill.teacher: 'self' is a training-pool entry, not a teacher agent")
        check_int("distill.rounds", self.rounds, 1, 1000)
        check_int("distill.episodes", self.episodes, 1)
        check_int("distill.chunk_episodes", self.chunk_episodes, 1)
        check_number("distill.teacher_mix", self.teacher_mix, 0.0, 1.0)
        if self.opponents is not None:
            if not isinstance(self.opponents, tuple) or not all(isinstance(e, PoolEntry) for e in self.opponents):
                raise ConfigError(f"distill.opponents={self.opponents!r} must be null or a list of "
                                  "{agent: NAME, weight: W}")
        check_bool("distill.deterministic", self.deterministic)
        if self.decisions is not None:
            check_int("distill.decisions", self.decisions, 1)
        check_int("distill.epochs", self.epochs, 1, 1000)
        check_int("distill.batch_size", self.batch_size, 2)
        check_number("distill.learning_rate", self.learning_rate, 1e-7, 1.0)
        check_int("distill.workers", self.workers, 1, 1024)
        if self.ray is not None:
            from parlor.training.evaluation.ray_runner import check_address

            check_address("distill.ray", self.ray)
            if self.workers != 1:
                raise ConfigError(f"distill.workers={self.workers} and distill.ray={self.ray!r}: give one of them "
                                  "(on Ray the cluster's CPUs are the workers)")


def check_agents(config: TrainConfig, game: Any) -> None:
    """``distill.teacher`` and ``distill.opponents`` name agents of ``game`` (checked before
    a run folder is made: an unknown name is a one-line error, not a failure mid-run)."""
    from parlor.training.learning.opponents import make_agent

    d = config.distill
    assert d is not None  # called for a config with a distill section
    names = [("distill.teacher", d.teacher)] + [("distill.opponents", e.agent) for e in d.opponents or ()
                                                  if e.agent != SELF]
    for field_name, name in names:
        try:
            make_agent(name, game, None, None)
        except ValueError as exc:  # the registry's message lists the agents there are
            raise ConfigError(f"{field_name}: {exc}") from None


# ---------------------------------------------------------------- bookkeeping
def _round_log(log: Callable[[str], None], round_: int, message: str) -> None:
    log(f"distill round {round_}: {message}")


def record_time(run_dir: Path, stage: str, seconds: float) -> None:
    """Add ``seconds`` to ``stage`` in the run's times.json (a resumed stage adds its session)."""
    path = Path(run_dir) / TIMES
    times = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    times[stage] = round(times.get(stage, 0.0) + seconds, 2)
    atomic_write_text(path, json.dumps(times, indent=1))


def round_folder(run_dir: Path, round_: int) -> Path:
    return Path(run_dir) / FOLDER / f"round_{round_:02d}"


def agreement(policy: Any, observations: np.ndarray, masks: np.ndarray, labels: np.ndarray,
              batch: int = 4096) -> float:
    """Share of states where the policy's most probable legal action is the label."""
    import torch

    if len(labels) == 0:
        return float("nan")
    hits = 0
    with torch.no_grad():
        for start in range(0, len(labels), batch):
            end = start + batch
            dist = policy.get_distribution(torch.as_tensor(observations[start:end]), action_masks=masks[start:end])
            hits += int((dist.distribution.probs.argmax(dim=1).numpy() == labels[start:end]).sum())
    return hits / len(labels)


# ---------------------------------------------------------------- labels
def label_spec(config: TrainConfig, learner: bytes | None) -> Any:
    from parlor.training.learning.labelling import LabelSpec
    from parlor.training.learning.train import env_kwargs

    d = config.distill
    assert d is not None  # called for a config with a distill section
    kwargs = {**env_kwargs(config, 0), "opponents": d.opponents if d.opponents is not None else config.opponents}
    return LabelSpec(env_kwargs=kwargs, teacher=d.teacher, learner=learner, teacher_mix=d.teacher_mix,
                     deterministic=d.deterministic, seed=config.seed, decisions=d.decisions,
                     workers=d.workers, ray=d.ray)


def chunk_meta(spec: Any, job: Any) -> dict[str, Any]:
    """What a chunk file records of how it was made (checked when a run resumes)."""
    kwargs = dict(spec.env_kwargs)
    return {"env": kwargs.pop("env_name"), "options": kwargs.pop("options"),
            "opponents": [[e.agent, e.weight] for e in kwargs.pop("opponents")],
            "env_kwargs": {k: v for k, v in kwargs.items() if k not in ("seed", "seat_offset")},
            "teacher": spec.teacher, "teacher_mix": spec.teacher_mix, "deterministic": spec.deterministic,
            "learner_sha256": None if spec.learner is None else hashlib.sha256(spec.learner).hexdigest(),
            "seed": spec.seed, "round": job.round, "chunk": job.chunk, "first": job.first, "episodes": job.episodes,
            # only when set, so the chunks of runs made before the field still resume
            **({} if spec.decisions is None else {"decisions": spec.decisions})}


def label_round(config: TrainConfig, run_dir: Path, round_: int, learner: bytes | None,
                log: Callable[[str], None] = print) -> tuple[dict[str, np.ndarray], int]:
    """The round's labels: chunks already on disk are read, the rest labelled (on the
    configured workers) and written as they finish. Returns (labels, chunks labelled now)."""
    from parlor.training.evaluation.runner import run_jobs
    from parlor.training.learning.labelling import LABELLING, chunk_path, concatenate, jobs_of, read_chunk, write_chunk

    d = config.distill
    assert d is not None  # called for a config with a distill section
    spec = label_spec(config, learner)
    folder = round_folder(run_dir, round_) / "labels"
    jobs = jobs_of(round_, d.episodes, d.chunk_episodes)
    chunks: dict[int, dict[str, np.ndarray]] = {}
    for job in jobs:
        path = chunk_path(folder, job.chunk)
        found = read_chunk(path, chunk_meta(spec, job))
        if found is not None:
            chunks[job.chunk] = found
        elif path.exists():
            log(f"distill round {round_}: {path} is damaged (unreadable); its episodes are labelled again")
    pending = [job for job in jobs if job.chunk not in chunks]
    if chunks:
        log(f"distill round {round_}: {len(chunks)} of {len(jobs)} label chunks already on disk")
    if not pending:
        return concatenate([chunks[job.chunk] for job in jobs]), 0
    where = f"Ray at {d.ray}" if d.ray else f"{d.workers} worker(s)"
    played = run_jobs(spec, pending, task=LABELLING)
    try:
        for n, (job, arrays) in enumerate(zip(pending, played), 1):
            write_chunk(chunk_path(folder, job.chunk), arrays, chunk_meta(spec, job))
            chunks[job.chunk] = arrays
            if n % max(1, len(pending) // 10) == 0 or n == len(pending):
                log(f"distill round {round_}: labelled {n}/{len(pending)} chunks ({d.teacher}, {where})")
    finally:
        played.close()  # stops the workers at once if the loop ended early
    return concatenate([chunks[job.chunk] for job in jobs]), len(pending)


def round_labels(config: TrainConfig, run_dir: Path, round_: int) -> dict[str, np.ndarray]:
    """A finished round's labels, read back (for the fits of the rounds after it)."""
    from parlor.training.learning.labelling import chunk_path, concatenate, jobs_of, read_chunk

    d = config.distill
    assert d is not None  # called for a config with a distill section
    spec = label_spec(config, _learner_bytes(run_dir, round_))
    folder = round_folder(run_dir, round_) / "labels"
    chunks = []
    for job in jobs_of(round_, d.episodes, d.chunk_episodes):
        found = read_chunk(chunk_path(folder, job.chunk), chunk_meta(spec, job))
        if found is None:
            raise ConfigError(f"{chunk_path(folder, job.chunk)} is missing or damaged, but round {round_} is marked "
                              f"done ({round_folder(run_dir, round_) / 'summary.json'}); delete that summary.json "
                              "to label the round's missing chunks again")
        chunks.append(found)
    return concatenate(chunks)


def _learner_bytes(run_dir: Path, round_: int) -> bytes | None:
    """The policy file that plays in ``round_``: the previous round's learner (none in round 0)."""
    return None if round_ == 0 else (round_folder(run_dir, round_ - 1) / "policy.zip").read_bytes()


# ---------------------------------------------------------------- the stage
def _return_text(mean_return: float | None) -> str:
    return "" if mean_return is None else f", labelled episodes' mean return {mean_return:+.3f}"


def expert_iteration(config: TrainConfig, model: Any, run_dir: Path, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Run (or finish) the distillation rounds on ``model.policy``; writes the files named in
    the module docstring and returns distill/summary.json's content."""
    from parlor.agents.policy import load_weights_into, save_policy
    from parlor.training.learning.train import policy_game
    from parlor.training.learning.warm_start import Demonstrations, clone

    d = config.distill
    assert d is not None  # called for a config with a distill section
    run_dir = Path(run_dir)
    game = policy_game(config)
    summaries: list[dict[str, Any]] = []
    seen: list[dict[str, np.ndarray]] = []
    for round_ in range(d.rounds):
        folder = round_folder(run_dir, round_)
        done = folder / "summary.json"
        if done.is_file() and (folder / "policy.zip").is_file():
            summaries.append(json.loads(done.read_text(encoding="utf-8")))
            seen.append(round_labels(config, run_dir, round_))
            load_weights_into(model.policy, folder / "policy.zip", game)
            log(f"distill round {round_}: done before (skipped)")
            continue
        start = time.perf_counter()
        labels, labelled = label_round(config, run_dir, round_, _learner_bytes(run_dir, round_), log)
        label_seconds = time.perf_counter() - start
        record_time(run_dir, "distill_labels", label_seconds)
        seen.append(labels)
        start = time.perf_counter()
        before = agreement(model.policy, labels["observations"], labels["masks"], labels["labels"])
        data = {k: np.concatenate([s[k] for s in seen]) for k in ("observations", "masks", "labels", "returns")}
        demos = Demonstrations(data["observations"], data["masks"], data["labels"], data["returns"],
                               episodes=d.episodes * len(seen), mean_return=float("nan"))
        fit = clone(model.policy, demos, d.epochs, d.batch_size, d.learning_rate, config.ppo.vf_coef,
                    config.seed * 1000 + round_, log=functools.partial(_round_log, log, round_))
        after = agreement(model.policy, labels["observations"], labels["masks"], labels["labels"])
        save_policy(model, folder / "policy.zip", game, **config.policy_metadata())
        fit_seconds = time.perf_counter() - start
        record_time(run_dir, "distill_fit", fit_seconds)
        # None with distill.decisions: the labelled episodes were cut short
        mean_return = None if d.decisions else float(labels["raw_returns"].mean())
        summary = {"round": round_, "teacher": d.teacher, "player": "teacher" if round_ == 0 else "learner",
                   "episodes": d.episodes, "states": int(len(labels["labels"])), "states_so_far": int(len(data["labels"])),
                   "chunks_labelled_now": labelled,
                   "mean_return": mean_return,
                   "played_teacher_move": float((labels["played"] == labels["labels"]).mean()),
                   "agreement_before_fit": before, "agreement_after_fit": after, "fit": fit,
                   "label_seconds": round(label_seconds, 2), "fit_seconds": round(fit_seconds, 2)}
        atomic_write_text(done, json.dumps(summary, indent=1))  # last: the round is done
        summaries.append(summary)
        log(f"distill round {round_}: {summary['states']:,} states, agreement with {d.teacher} "
            f"{before:.3f} -> {after:.3f}{_return_text(mean_return)} "
            f"({label_seconds:.0f} s labels, {fit_seconds:.0f} s fit)")
    final = save_policy(model, run_dir / FOLDER / "policy.zip", game, **config.policy_metadata())
    total = {"teacher": d.teacher, "rounds": summaries, "policy": str(final),
             "label_seconds": round(sum(s["label_seconds"] for s in summaries), 2),
             "fit_seconds": round(sum(s["fit_seconds"] for s in summaries), 2)}
    atomic_write_text(run_dir / FOLDER / "summary.json", json.dumps(total, indent=1))
    return total
