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


def curve_panels(history: list[dict[str, Any]], baselines: list[dict[str, Any]]) -> list[str]:
    """The panels of the learning curve: ``"reward"``, then each game statistic (the game's
    own order, OFC's foul first) that varies somewhere, at most MAX_STAT_PANELS of them: a
    statistic equal in every evaluation and baseline (Buffalo Bill's ``chips_left``, always
    0) says nothing and gets no panel."""
    names = list(dict.fromkeys(k[5:] for row in history for k in row if k.startswith("stat_")))
    shown = []
    for name in names:
        values = [r[f"stat_{name}"] for r in history + baselines if f"stat_{name}" in r]
        values = [v for v in values if v is not None and not math.isnan(v)]
        if values and max(values) > min(values):
            shown.append(name)
    return ["reward", *shown[:MAX_STAT_PANELS]]


def curve_series(history: list[dict[str, Any]], baselines: list[dict[str, Any]]) -> list[str]:
    """Every series of the plot by its legend label, each drawn in one colour in every
    panel: the learner against each opponent, then each baseline against each opponent."""
    opponents = list(dict.fromkeys(row["opponent"] for row in history + baselines))
    labels = []
    for opponent in opponents:
        if any(r["opponent"] == opponent for r in history):
            labels.append("learner" if opponent == SOLO else f"learner vs {opponent}")
    for opponent in opponents:
        for b in baselines:
            if b["opponent"] == opponent:
                labels.append(b["agent"] if opponent == SOLO else f"{b['agent']} vs {opponent}")
    return list(dict.fromkeys(labels))


PANEL_COLUMNS = 2
PANEL_SIZE = (4.6, 3.1)  # inches per small multiple; the figure grows by panels, never by a row of them
LEGEND_CHAR_INCHES = 0.07  # width of a legend character at 8 pt (a generous estimate: DejaVu Sans)
LEGEND_ENTRY_INCHES = 0.7  # a legend entry's line sample and the gaps around it


def legend_columns(labels: Sequence[str], width_inches: float, most: int = 3) -> int:
    """How many columns of legend entries fit across ``width_inches``: at most ``most``, and
    fewer for long labels (a policy path as opponent), so no entry is cut at the figure's edge."""
    if not labels:
        return 1
    entry = LEGEND_ENTRY_INCHES + LEGEND_CHAR_INCHES * max(len(label) for label in labels)
    return max(1, min(most, len(labels), int(width_inches // entry)))


def plot_learning_curve(path: str, title: str, history: list[dict[str, Any]], baselines: list[dict[str, Any]],
                        train_curve: Sequence[tuple[int, float]] = ()) -> None:
    """PNG of small multiples, two to a row: the evaluation reward (mean +- 95% CI) over
    training steps with the training episodes' mean return (grey), then one panel per game
    statistic that varies (:func:`curve_panels`). Each series (learner vs an opponent, a
    baseline vs an opponent: :func:`curve_series`) keeps one colour in every panel;
    baselines are dashed level lines; one legend serves all panels."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = curve_panels(history, baselines)
    series = curve_series(history, baselines)
    palette = plt.get_cmap("tab10").colors  # type: ignore[attr-defined]  # a ListedColormap; typed as the base class
    colour = {label: palette[i % len(palette)] for i, label in enumerate(series)}
    cols = min(PANEL_COLUMNS, len(panels))
    rows = -(-len(panels) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(PANEL_SIZE[0] * cols, PANEL_SIZE[1] * rows + 0.9),
                             squeeze=False, layout="constrained")
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    opponents = list(dict.fromkeys(row["opponent"] for row in history + baselines))
    for ax, panel in zip(axes.flat, panels):
        key = "mean" if panel == "reward" else f"stat_{panel}"
        for opponent in opponents:
            rows_ = sorted((r for r in history if r["opponent"] == opponent and key in r), key=lambda r: r["step"])
            if rows_:
                label = "learner" if opponent == SOLO else f"learner vs {opponent}"
                x = np.array([r["step"] for r in rows_])
                y = np.array([r[key] for r in rows_], dtype=float)
                ax.plot(x, y, marker="o", markersize=3, color=colour[label], label=label)
                if panel == "reward":
                    ci = np.array([0.0 if math.isnan(r["ci"]) else r["ci"] for r in rows_])
                    ax.fill_between(x, y - ci, y + ci, color=colour[label], alpha=0.2)
            for b in (r for r in baselines if r["opponent"] == opponent and key in r):
                label = b["agent"] if opponent == SOLO else f"{b['agent']} vs {opponent}"
                ax.axhline(b[key], color=colour[label], linestyle="--", linewidth=1.6, label=label)
        if panel == "reward" and train_curve:
            steps, returns = zip(*train_curve)
            ax.plot(steps, returns, color="grey", alpha=0.6, linewidth=1, label="training episodes (mean return)")
        ax.set_title("reward per episode (duplicate deals, 95% CI)" if panel == "reward" else f"{panel} per episode",
                     fontsize=9)
        ax.set_xlabel("training steps", fontsize=8)
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
    handles: dict[str, Any] = {}
    for ax in axes.flat[:len(panels)]:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    if handles:  # (none before the first evaluation)
        ncol = legend_columns(list(handles), PANEL_SIZE[0] * cols)
        fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncol=ncol,
                   fontsize=8, frameon=False)
    fig.suptitle("\n".join(textwrap.wrap(title, 90)), fontsize=10)
    fig.savefig(path, dpi=110)
    plt.close(fig)
