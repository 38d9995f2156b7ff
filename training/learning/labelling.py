"""Teacher labels for expert iteration: the learner plays, the teacher says what it would play.

One labelling job (:class:`LabelJob`) plays a chunk of episodes of the training env
(:class:`~parlor.training.learning.wrapper.SingleAgentEnv`: the learner's seat against the
distillation's opponent pool) and returns, for every decision of the learner's seat, the
observation, the (guarded) action mask, the teacher's action at that state (the label),
the action played and the scaled return from there on. Who plays: the learner of the round
(its policy file travels inside :class:`LabelSpec` as bytes, so a Ray node on another
machine needs no shared disk), or the teacher with probability ``teacher_mix`` (DAgger's
beta); in round 0 there is no learner yet and the teacher plays every move (behaviour
cloning). The pool entry ``self`` plays the round's learner too (stochastically), once it exists.
With ``decisions`` set, an episode ends after the learner's first that many decisions (e.g.
5: a Pineapple opening, one card each): the expensive teacher labels only the part of the
game it is asked about. Those rows' returns (and the episode's raw return) are NaN, because
the episode was not played out; the fit leaves them out of the value loss.

Every episode is seeded by (seed, round, episode) alone: the env's deal and opponents, the
teacher's and the learner's generators and the mixing draw. So a job gives the same
labels in any process, and the jobs run on the evaluation's workers
(:func:`parlor.training.evaluation.runner.run_jobs` with :data:`LABELLING`: this process, a
pool of ``workers``, or Ray tasks at ``ray``) with identical results.

Chunks are stored as ``.npz`` (numpy arrays and a JSON string; nothing pickled), each
written atomically as its job finishes (:func:`write_chunk`), and checked against what
the run expects when read back (:func:`read_chunk`), so a killed run resumes without
relabelling what it finished. Imported by :mod:`parlor.training.learning.distill`; needs
torch only in the worker that loads a learner.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from parlor.agents.episodes import decide
from parlor.envs.engine.files import replace_atomically
from parlor.envs.engine.game import ConfigError
from parlor.training.evaluation.runner import Task
from parlor.training.learning.opponents import SELF, make_agent

ARRAYS = ("observations", "masks", "labels", "played", "returns", "episodes")
FORMAT = "parlor-labels/1"


@dataclass(frozen=True)
class LabelSpec:
    """Everything a worker needs to label (picklable; equal specs share a worker's set-up)."""

    env_kwargs: Mapping[str, Any]      # SingleAgentEnv keywords (env_name, options, opponents, ...)
    teacher: str                       # an agent name
    learner: bytes | None = None       # the round's learner as a policy file; None: the teacher plays
    teacher_mix: float = 0.0           # probability that the teacher's action is played (rounds with a learner)
    deterministic: bool = True         # the learner plays its most probable action
    seed: int = 0
    decisions: int | None = None       # label the learner's first N decisions, then end the episode
    workers: int = 1                   # where the jobs run (runner.run_jobs)
    ray: str | None = None


@dataclass(frozen=True)
class LabelJob:
    round: int
    chunk: int
    first: int       # the round's episode index of the chunk's first episode
    episodes: int


def jobs_of(round_: int, episodes: int, chunk_episodes: int) -> list[LabelJob]:
    """A round's ``episodes`` in chunks of ``chunk_episodes`` (the last may be shorter)."""
    return [LabelJob(round_, c, first, min(chunk_episodes, episodes - first))
            for c, first in enumerate(range(0, episodes, chunk_episodes))]


# ---------------------------------------------------------------- worker side
_state: dict[str, Any] = {}


def _policy_from_bytes(data: bytes, game: Any, deterministic: bool, seed: int) -> Any:
    """A PolicyAgent from policy-file bytes (checked like any policy file: JSON + safetensors)."""
    from parlor.agents.policy import PolicyAgent

    fd, path = tempfile.mkstemp(suffix=".zip", prefix="parlor-learner-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        return PolicyAgent.from_file(path, game, deterministic=deterministic, seed=seed)
    finally:
        os.unlink(path)


def init_labeller(spec: LabelSpec, make_game: Any = None, factories: Mapping[str, Any] | None = None) -> None:
    """Build this process's env, teacher and learner for ``spec`` (``make_game`` is unused:
    the env comes by name, e.g. one added with ``register_env``; the learner travels as bytes
    in ``spec``, so no shipped ``factories`` are taken)."""
    if factories:
        raise ValueError(f"labelling takes its learner from the spec, not shipped factories: {sorted(factories)}")
    from parlor.training.learning.wrapper import SingleAgentEnv

    _state.clear()
    env = SingleAgentEnv(**{**spec.env_kwargs, "seed": 0})
    learner = None
    if spec.learner is not None:
        learner = _policy_from_bytes(spec.learner, env.game, spec.deterministic, 0)
        if any(e.agent == SELF for e in env.pool.entries):
            env.pool.add_snapshot(_policy_from_bytes(spec.learner, env.game, False, 0))
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
    teacher = make_agent(spec.teacher, env.game, None, None)
    _state.update(spec=spec, env=env, teacher=teacher, learner=learner)


def episode_seeds(seed: int, round_: int, episode: int) -> list[int]:
    """(env, teacher, learner, mixing) seeds of one episode: from (seed, round, episode) only."""
    return [int(s) for s in np.random.SeedSequence([seed, round_, episode]).generate_state(4)]


def label_job(job: LabelJob) -> dict[str, np.ndarray]:
    """The labels of one chunk (arrays named in ``ARRAYS``, plus ``raw_returns`` per episode)."""
    spec, env, teacher, learner = (_state[k] for k in ("spec", "env", "teacher", "learner"))
    rows: dict[str, list[Any]] = {k: [] for k in ARRAYS}
    raw_returns = []
    for k in range(job.episodes):
        episode = job.first + k
        env_seed, teacher_seed, learner_seed, mix_seed = episode_seeds(spec.seed, job.round, episode)
        seat = env.learner_seats[episode % len(env.learner_seats)]
        obs, _ = env.reset(seed=env_seed, options={"learner_seat": seat})
        teacher.reset(teacher_seed)
        if learner is not None:
            learner.reset(learner_seed)
        mixing = np.random.default_rng(mix_seed)
        rewards: list[float] = []
        done = False
        while not done and (spec.decisions is None or len(rewards) < spec.decisions):
            mask = env.action_masks()
            label = decide(teacher, env.game, env.state, env.learner, mask)
            action = label
            if learner is not None and not mixing.random() < spec.teacher_mix:
                action = decide(learner, env.game, env.state, env.learner, mask)
            for name, value in zip(("observations", "masks", "labels", "played", "episodes"),
                                   (obs, mask, label, action, episode)):
                rows[name].append(value)
            obs, reward, terminated, truncated, info = env.step(action)
            rewards.append(float(reward))
            done = terminated or truncated
        if done:
            rows["returns"].extend(np.cumsum(rewards[::-1])[::-1].tolist())
            raw_returns.append(float(info["raw_return"]))
        else:  # cut after spec.decisions: what the rest of the episode would have paid is unknown
            rows["returns"].extend([float("nan")] * len(rewards))
            raw_returns.append(float("nan"))
    dtypes = dict(observations=np.float32, masks=bool, labels=np.int64, played=np.int64, returns=np.float32,
                  episodes=np.int32)
    out = {k: np.asarray(rows[k], dtype=dtypes[k]) for k in ARRAYS}
    out["raw_returns"] = np.asarray(raw_returns, dtype=np.float64)
    return out


LABELLING = Task(init_labeller, label_job)


# ---------------------------------------------------------------- files
def chunk_path(folder: Path, chunk: int) -> Path:
    return folder / f"chunk_{chunk:05d}.npz"


def write_chunk(path: Path, arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]) -> None:
    """One chunk's labels, atomically: a reader finds the whole file or none."""
    text = json.dumps({"format": FORMAT, **meta}, sort_keys=True)

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as fh:
            # numpy's stub: a ** mapping might hold its allow_pickle flag; these are array names
            np.savez_compressed(fh, meta=np.array(text), **arrays)  # type: ignore[arg-type]

    replace_atomically(path, write)


def read_chunk(path: Path, meta: Mapping[str, Any]) -> dict[str, np.ndarray] | None:
    """The chunk at ``path`` if it is whole and was made as ``meta`` says; None if it is
    missing or unreadable (it is labelled again). Labels made otherwise (another teacher,
    env, learner or seed) are an error: the run folder belongs to another run."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in (*ARRAYS, "raw_returns")}
            saved = json.loads(str(data["meta"]))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, json.JSONDecodeError):
        return None
    expected = {"format": FORMAT, **meta}
    if json.loads(json.dumps(expected, sort_keys=True)) != saved:
        diff = sorted(k for k in set(saved) | set(expected) if saved.get(k) != expected.get(k))
        raise ConfigError(f"{path} holds labels made with other settings ({', '.join(diff)}); this run expects "
                          f"{ {k: expected.get(k) for k in diff} }: resume the run with its own config, or start "
                          "a new run folder")
    return arrays


def concatenate(chunks: Sequence[Mapping[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The chunks' arrays end to end."""
    return {k: np.concatenate([c[k] for c in chunks]) for k in (*ARRAYS, "raw_returns")}
