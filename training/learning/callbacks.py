"""The training run's bookkeeping as one SB3 callback: periodic masked evaluation
with duplicate deals, checkpoints, self-play snapshots, TensorBoard scalars
and the learning-curve PNG. Schedules key on the model's step count, so a
resumed run carries on where it stopped; rows and snapshots of steps past the
checkpoint it resumed from (a part of the run that was lost) are dropped, so the
curve has one row per step and opponent. A run with a warm start (``pretrain``,
``init``) also evaluates the network before it, as the baseline ``untrained``: the
warm start's gain is the first point's distance from that line, and each evaluation
logs its gain over it as a paired difference on the same deals (a narrower CI). Every file is
replaced atomically. :func:`step_bar` is the one progress bar of training, sb3's and RLlib's.
Imported only by :mod:`parlor.training.learning.train` (it needs sb3)."""
from __future__ import annotations

import csv
import functools
import io
import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from parlor.agents.policy import PolicyAgent, save_policy
from parlor.envs.engine.files import atomic_write_text
from parlor.training.evaluation.stats import mean_ci
from parlor.training.learning.checkpoints import step_files, step_of, step_path, write_checkpoint
from parlor.training.learning.configs import TrainConfig
from parlor.training.learning.learner_eval import evaluate_player, flat_row, plot_learning_curve
from parlor.training.learning.opponents import make_agent
from parlor.training.learning.wrapper import make_env_game

UNTRAINED = "untrained"  # the baseline of the network before its warm start

def _next(step: int, every: int, start: int = 0) -> int:
    """The first multiple-of-``every`` milestone (from ``start``) after ``step``."""
    if step < start:
        return start
    return start + ((step - start) // every + 1) * every


def read_csv(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    out = []
    for row in rows:
        parsed: dict[str, Any] = {}
        for k, v in row.items():
            if k in ("agent", "opponent"):
                parsed[k] = v
            elif v not in ("", None):
                parsed[k] = int(v) if k in ("step", "n") else float(v)
        out.append(parsed)
    return out


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    keys = list(dict.fromkeys(k for row in rows for k in row))
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=keys)
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(path, text.getvalue())


def step_bar(config: TrainConfig, done: int, enabled: bool = True) -> Any:
    """The training progress bar, the same for every backend: the run's steps, ``done`` of
    ``total_steps`` (a resumed run starts where it is), drawn with rich as SB3's own bar."""
    import warnings

    from tqdm import TqdmExperimentalWarning
    from tqdm.rich import tqdm

    warnings.filterwarnings("ignore", category=TqdmExperimentalWarning)  # tqdm calls its rich bar experimental
    total = config.total_steps
    return tqdm(total=total, initial=min(done, total), unit="step", desc=f"{config.backend} ppo", disable=not enabled)


class ParlorCallback(BaseCallback):
    def __init__(self, config: TrainConfig, run_dir: Path, log: Any = print, progress_bar: bool = False):
        super().__init__()
        self.config, self.run_dir, self.log = config, Path(run_dir), log
        self.progress_bar, self.bar = progress_bar, None
        self.game = make_env_game(config.env, config.options)
        self.seats = config.learner_seats or tuple(range(self.game.num_players))
        self.history = read_csv(self.run_dir / "eval.csv")
        self.baselines = read_csv(self.run_dir / "baselines.csv")
        self.train_curve = [(int(r["step"]), float(r["mean"])) for r in read_csv(self.run_dir / "train_curve.csv")]
        self._episode_returns: list[float] = []
        self._untrained: dict[str, list[float]] = {}  # opponent -> per-deal samples (this session's)
        self._opponents: dict[tuple[str, int], Any] = {}

    # ------------------------------------------------------------ setup
    def _init_callback(self) -> None:
        step = self.num_timesteps = int(self.model.num_timesteps)  # nonzero when resuming
        cfg = self.config
        self._forget_after(step)
        self.next_eval = _next(step, cfg.eval.every)
        self.next_checkpoint = _next(step, cfg.checkpoint_every)
        self.next_snapshot = None
        if cfg.self_play_enabled:
            self._reload_snapshots()
            sp = cfg.self_play
            assert sp is not None  # self_play_enabled
            self.next_snapshot = _next(step, sp.every, sp.start) if self._snapshot_paths() else max(step, sp.start)
        missing = [n for n in cfg.eval.baselines if not any(r["agent"] == n for r in self.baselines)]
        if missing:
            self._evaluate_baselines({n: functools.partial(self._opponent, n) for n in missing})
        if not self.history:
            self._evaluate()  # the untrained policy: the curve's first point

    def _forget_after(self, step: int) -> None:
        """Drop what was recorded after ``step``: a resumed run continues from its checkpoint,
        and the steps past it (a crash, a damaged newer checkpoint) will be played again."""
        kept = [r for r in self.history if r["step"] <= step]
        curve = [(s, m) for s, m in self.train_curve if s <= step]
        if len(kept) < len(self.history):
            self.log(f"resume: dropped {len(self.history) - len(kept)} evaluation rows after step {step:,}")
            self.history = kept
            write_csv(self.run_dir / "eval.csv", self.history)
        if len(curve) < len(self.train_curve):
            self.train_curve = curve
            write_csv(self.run_dir / "train_curve.csv", [{"step": s, "mean": m} for s, m in curve])

    def _opponent(self, name: str, seat: int) -> Any:
        key = (name, seat)
        if key not in self._opponents:
            self._opponents[key] = make_agent(name, self.game, None, None)
        return self._opponents[key]

    def _player(self, policy: Any) -> PolicyAgent:
        """The network ``policy`` as the evaluation plays it (the eval's determinism and seed, the run's guard)."""
        ev = self.config.eval
        return PolicyAgent(policy, deterministic=ev.deterministic, seed=ev.seed, game=self.game,
                           guard=self.config.action_guard)

    def evaluate_untrained(self, policy: Any) -> None:
        """Before a warm start: the fresh network ``policy`` on the evaluation deals, recorded as
        the baseline ``untrained`` (once: a resumed run keeps the row it has)."""
        if not any(r["agent"] == UNTRAINED for r in self.baselines):
            player = self._player(policy)
            results = self._evaluate_baselines({UNTRAINED: lambda seat: player})[UNTRAINED]
            self._untrained = {opp: r["samples"] for opp, r in results.items()}

    def _evaluate_baselines(self, players: Mapping[str, Callable[[int], Any]]) -> dict[str, dict[str, Any]]:
        """Each of ``players`` in the learner's place; rows into baselines.csv; the results by name."""
        ev = self.config.eval
        t = time.perf_counter()
        out = {}
        for name, make_player in players.items():
            out[name] = results = evaluate_player(self.game, make_player, self._opponent,
                                                  ev.opponents, self.seats, ev.deals, ev.seed)
            self.baselines += flat_row(0, name, results)
            for opp, r in results.items():
                self.log(f"baseline {name} vs {opp}: {r['mean']:+.3f} +- {r['ci']:.3f} {_stats_text(r)}")
        write_csv(self.run_dir / "baselines.csv", self.baselines)
        self.log(f"baselines evaluated in {time.perf_counter() - t:.1f} s")
        return out

    # ------------------------------------------------------------ periodic work
    def _on_training_start(self) -> None:  # sb3's learn(); the RLlib loop draws its own step_bar
        self.bar = step_bar(self.config, int(self.model.num_timesteps), self.progress_bar)

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def _on_step(self) -> bool:
        if self.bar is not None:
            self.bar.update(min(self.num_timesteps, self.bar.total) - self.bar.n)
        for info in self.locals.get("infos", ()):
            if "raw_return" in info:
                self._episode_returns.append(info["raw_return"])
                self.logger.record_mean("parlor/episode_return", info["raw_return"])
                for name, value in info.get("stats", {}).items():
                    self.logger.record_mean(f"parlor/{name}", value)
        step = self.num_timesteps
        if step >= self.next_eval:
            self._evaluate()
            self.next_eval = _next(step, self.config.eval.every)
        if step >= self.next_checkpoint:
            self._checkpoint()
            self.next_checkpoint = _next(step, self.config.checkpoint_every)
        if self.next_snapshot is not None and step >= self.next_snapshot:
            self._snapshot()
            sp = self.config.self_play
            assert sp is not None  # next_snapshot is set only with self-play
            self.next_snapshot = _next(step, sp.every, sp.start)
        return True

    def _on_rollout_end(self) -> None:
        if self._episode_returns:
            self.train_curve.append((self.num_timesteps, float(np.mean(self._episode_returns))))
            self._episode_returns = []
            write_csv(self.run_dir / "train_curve.csv", [{"step": s, "mean": m} for s, m in self.train_curve])

    def _evaluate(self) -> None:
        ev = self.config.eval
        t = time.perf_counter()
        player = self._player(self.model.policy)
        results = evaluate_player(self.game, lambda seat: player, self._opponent, ev.opponents, self.seats,
                                  ev.deals, ev.seed)
        step = self.num_timesteps
        self.history = [r for r in self.history if r["step"] != step] + flat_row(step, "learner", results)
        write_csv(self.run_dir / "eval.csv", self.history)
        for opp, r in results.items():
            self.logger.record(f"eval/{opp}/mean", r["mean"])
            for name, value in r["stats"].items():
                self.logger.record(f"eval/{opp}/{name}", value)
            self.log(f"step {step:>9,}: learner vs {opp}: {r['mean']:+.3f} +- {r['ci']:.3f} {_stats_text(r)}"
                     f" ({time.perf_counter() - t:.1f} s)")
            if opp in self._untrained:
                gain, ci = mean_ci(np.subtract(r["samples"], self._untrained[opp]))
                self.log(f"step {step:>9,}: gain over the untrained network vs {opp}: {gain:+.3f} +- {ci:.3f} "
                         f"(paired, {len(r['samples'])} deals)")
        self.plot()

    def _checkpoint(self) -> Path:
        return write_checkpoint(self.model, self.run_dir, self.game, **self.config.policy_metadata())

    # ------------------------------------------------------------ self-play
    def _snapshot_paths(self) -> list[Path]:
        """Snapshots up to the current step (later ones belong to a part of the run that was lost)."""
        return [p for p in step_files(self.run_dir / "snapshots") if step_of(p) <= self.num_timesteps]

    def _reload_snapshots(self) -> None:
        assert self.config.self_play is not None  # called with self-play only
        for path in self._snapshot_paths()[-self.config.self_play.keep:]:
            self.training_env.env_method("add_snapshot", str(path))

    def _snapshot(self) -> None:
        path = save_policy(self.model, step_path(self.run_dir / "snapshots", self.num_timesteps), self.game,
                           **self.config.policy_metadata())
        self.training_env.env_method("add_snapshot", str(path))
        self.log(f"step {self.num_timesteps:>9,}: self-play snapshot {path.name} joins the pool")

    # ------------------------------------------------------------ end
    def plot(self) -> None:
        title = f"{self.config.env} {json.dumps(dict(self.config.options)) if self.config.options else ''}".strip()
        plot_learning_curve(str(self.run_dir / "learning_curve.png"), title, self.history, self.baselines,
                            self.train_curve)

    def finish(self, model: Any) -> None:
        """After ``learn``: a last evaluation and checkpoint at the final step, the plot, a summary."""
        self.model = model
        step = int(model.num_timesteps)
        if not any(r["step"] == step for r in self.history):
            self._evaluate()
        self._checkpoint()
        self.plot()
        last = [r for r in self.history if r["step"] == step]
        summary = {"env": self.config.env, "options": dict(self.config.options), "num_timesteps": step,
                   "final_eval": last, "baselines": self.baselines}
        atomic_write_text(self.run_dir / "summary.json", json.dumps(summary, indent=1))


def _stats_text(result: dict[str, Any]) -> str:
    return " ".join(f"{k}={v:.3f}" for k, v in result["stats"].items())
