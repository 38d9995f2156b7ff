"""Periodic evaluation of the learner during training, and the learning-curve plot.

The learner (its policy, masked, deterministic by default) plays pre-sampled
duplicate deals (:func:`parlor.training.evaluation.deals.deal_for`: the same
seed and stacked decks for every lineup) once in each of its seats against each evaluation
opponent; the per-deal mean over seats is one sample, so the 95% confidence
interval (:func:`parlor.training.evaluation.stats.mean_ci`) is over deals and the seat luck cancels.
Baselines are other agents played in the learner's place on the very same
deals: the reference lines the learner must beat.
"""
from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from parlor.agents.episodes import play_episode
from parlor.envs.engine.game import Game
from parlor.training.evaluation.deals import deal_for
from parlor.training.evaluation.stats import mean_ci

SOLO = "solo"  # the "opponent" label of a one-player game
MAX_STAT_PANELS = 3


def evaluate_player(
    game: Game,
    make_player: Callable[[int], Any],
    make_opponent: Callable[[str, int], Any],
    opponents: Sequence[str],
    seats: Sequence[int],
    deals: int,
    seed: int,
) -> dict[str, dict[str, Any]]:
    """Results of the agent ``make_player(seat)`` per opponent name:
    ``{opponent: {"mean", "ci", "n", "stats": {name: mean}, "samples": [per-deal mean]}}`` (the
    samples in deal order: two agents' samples of the same ``seed`` are paired, deal by deal)."""
    if game.num_players == 1:
        opponents = [SOLO]
    results = {}
    for o, opponent in enumerate(opponents):
        samples: list[float] = []
        stats: dict[str, list[float]] = {}
        for deal in range(deals):
            game_seed, decks = deal_for(game, seed, deal)
            per_seat = []
            for seat in seats:
                lineup = [make_player(p) if p == seat else make_opponent(opponent, p) for p in range(game.num_players)]
                agent_seeds = [int(s) for s in np.random.SeedSequence([seed, deal, o, seat]).generate_state(len(lineup))]
                result = play_episode(game, lineup, game_seed, decks, agent_seeds)
                per_seat.append(result.rewards[seat])
                for name, values in result.stats.items():
                    stats.setdefault(name, []).append(values[seat])
            samples.append(float(np.mean(per_seat)))
        mean, ci = mean_ci(samples)
        results[opponent] = {
            "mean": mean,
            "ci": ci,
            "n": len(samples),
            "stats": {name: float(np.mean(v)) for name, v in stats.items()},
            "samples": samples,
        }
    return results


def flat_row(step: int, who: str, results: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """CSV rows: one per opponent."""
    rows = []
    for opponent, r in results.items():
        row = {"step": step, "agent": who, "opponent": opponent, "mean": r["mean"],
               "ci": r["ci"], "n": r["n"]}
        row.update({f"stat_{k}": v for k, v in r["stats"].items()})
        rows.append(row)
    return rows


def plot_learning_curve(path: str, title: str, history: list[dict[str, Any]], baselines: list[dict[str, Any]],
                        train_curve: Sequence[tuple[int, float]] = ()) -> None:
    """PNG: evaluation mean +- CI per opponent over steps with the baselines as dashed lines
    and the training episodes' mean return (grey); then one panel per game statistic
    (e.g. OFC foul rate), learner against baselines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # the game's own order of its statistics (OFC: foul first), not the alphabet's
    stat_names = list(dict.fromkeys(k[5:] for row in history for k in row if k.startswith("stat_")))[:MAX_STAT_PANELS]
    fig, axes = plt.subplots(1, 1 + len(stat_names), figsize=(6.5 + 4.2 * len(stat_names), 4.2), squeeze=False)
    ax = axes[0][0]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    styles = ("--", ":", "-.", (0, (5, 1)))
    opponents = list(dict.fromkeys(row["opponent"] for row in history + baselines))
    for i, opponent in enumerate(opponents):
        color = colors[i % len(colors)]
        rows = sorted((r for r in history if r["opponent"] == opponent), key=lambda r: r["step"])
        if rows:
            x = np.array([r["step"] for r in rows])
            y = np.array([r["mean"] for r in rows])
            ci = np.array([0.0 if math.isnan(r["ci"]) else r["ci"] for r in rows])
            label = "learner" if opponent == SOLO else f"learner vs {opponent}"
            ax.plot(x, y, marker="o", color=color, label=label)
            ax.fill_between(x, y - ci, y + ci, color=color, alpha=0.2)
        for j, b in enumerate(r for r in baselines if r["opponent"] == opponent):
            label = b["agent"] if opponent == SOLO else f"{b['agent']} vs {opponent}"
            ax.axhline(b["mean"], color=color, linestyle=styles[j % len(styles)], alpha=0.8, label=label)
    if train_curve:
        x, y = zip(*train_curve)
        ax.plot(x, y, color="grey", alpha=0.6, linewidth=1, label="training episodes (mean return)")
    ax.set_xlabel("training steps")
    ax.set_ylabel("reward per episode (duplicate deals, 95% CI)")
    ax.set_title("\n".join(textwrap.wrap(title, 60)), fontsize=9)  # long option sets stay in their panel
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    for k, name in enumerate(stat_names):
        ax2 = axes[0][k + 1]
        for i, opponent in enumerate(opponents):
            color = colors[i % len(colors)]
            rows = sorted((r for r in history if r["opponent"] == opponent and f"stat_{name}" in r), key=lambda r: r["step"])
            if rows:
                ax2.plot([r["step"] for r in rows], [r[f"stat_{name}"] for r in rows], marker="o", color=color,
                         label="learner" if opponent == SOLO else f"learner vs {opponent}")
            for j, b in enumerate(r for r in baselines if r["opponent"] == opponent and f"stat_{name}" in r):
                ax2.axhline(b[f"stat_{name}"], color=color, linestyle=styles[j % len(styles)], alpha=0.8, label=b["agent"])
        ax2.set_xlabel("training steps")
        ax2.set_title(f"{name} per episode", fontsize=9)
        ax2.grid(alpha=0.3)
        ax2.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
