"""Training checkpoints of a run folder: written atomically, resumed from the newest intact one.

``<run>/checkpoints/step_<N>.zip`` (the newest :data:`KEEP_CHECKPOINTS` are kept) and
``latest.zip`` (a copy of the newest) are policy files with the optimizer state
(:mod:`parlor.agents.policy_format`): JSON and safetensors, so resuming unpickles nothing.
A resumed model is rebuilt from the run's own config and filled from the checkpoint:
network weights, Adam's moment estimates, the step and update counts. Each file is
written to a temporary name and renamed, so a crash leaves the previous file whole;
a file damaged some other way (a full disk, a partial copy) is skipped by
:func:`newest_intact`, which says so. Needs torch and sb3 (imported by the trainer only).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from parlor.agents.policy import (
    Architecture,
    PolicyFile,
    PolicyFileError,
    fit_weights,
    read_checkpoint,
    restore_optimizer,
    save_policy,
)
from parlor.envs.engine.files import atomic_write_bytes
from parlor.envs.engine.game import ConfigError, Game

CHECKPOINTS, LATEST = "checkpoints", "latest.zip"
KEEP_CHECKPOINTS = 5


def step_path(folder: Path, step: int) -> Path:
    """The file of the checkpoint (or self-play snapshot) taken at ``step``."""
    return folder / f"step_{step:09d}.zip"


def step_of(path: Path) -> int:
    """The step in a ``step_<N>.zip`` name."""
    return int(path.stem.removeprefix("step_"))


def step_files(folder: Path) -> list[Path]:
    """``step_<N>.zip`` files of ``folder``, oldest first (names sort by step)."""
    return sorted(p for p in folder.glob("step_*.zip") if p.stem.removeprefix("step_").isdigit())


def write_checkpoint(model: Any, run_dir: Path, game: Game, **meta: Any) -> Path:
    """``checkpoints/step_<N>.zip`` and ``latest.zip`` for ``model`` (a MaskablePPO) at its step;
    older step files beyond the newest :data:`KEEP_CHECKPOINTS` are removed."""
    folder = Path(run_dir) / CHECKPOINTS
    path = save_policy(model, step_path(folder, int(model.num_timesteps)), game, checkpoint=True, **meta)
    atomic_write_bytes(folder / LATEST, path.read_bytes())
    for old in step_files(folder)[:-KEEP_CHECKPOINTS]:
        old.unlink()
    return path


def newest_intact(run_dir: Path, game: Game, log: Any = print) -> PolicyFile:
    """The checkpoint with the most steps among ``latest.zip`` and the step files that opens and
    checks whole; one log line names any damaged file passed over. A checkpoint of another env
    (:class:`~parlor.agents.policy.PolicyMismatchError`) is an error, not damage."""
    folder = Path(run_dir) / CHECKPOINTS
    best: PolicyFile | None = None
    damaged: list[str] = []
    for path in [folder / LATEST, *reversed(step_files(folder))]:
        if not path.is_file():
            continue
        try:
            saved = read_checkpoint(path, game)
        except PolicyFileError as exc:
            damaged.append(str(exc))
            continue
        if best is None or saved.header["num_timesteps"] > best.header["num_timesteps"]:
            best = saved
        if path.name != LATEST:
            break  # step files come newest first: the first whole one is the newest
    if best is None:
        found = "; ".join(damaged) or "no checkpoint files"
        raise FileNotFoundError(f"{run_dir} has no intact checkpoint in {CHECKPOINTS}/ to resume from ({found})")
    if damaged:
        log(f"resume: skipped damaged checkpoint(s): {' | '.join(damaged)}; resuming from {best.path.name} "
            f"(step {best.header['num_timesteps']:,}), the newest intact one")
    return best


def restore(model: Any, saved: PolicyFile) -> None:
    """Fill ``model`` (a fresh MaskablePPO built from the run's config) from the checkpoint ``saved``."""
    built = Architecture.of_policy(model.policy)
    if built != saved.architecture:
        raise ConfigError(f"{saved.path}: its network ({saved.architecture.describe()}) is not the one the run's "
                          f"config builds ({built.describe()}); was config.yaml edited?")
    assert saved.weights is not None and saved.optimizer is not None  # read with both, optimizer=True
    fit_weights(model.policy, saved.weights, saved.path)
    restore_optimizer(model.policy.optimizer, saved.optimizer, saved.path)
    model.num_timesteps = int(saved.header["num_timesteps"])
    model._n_updates = int(saved.header["checkpoint"]["n_updates"])

