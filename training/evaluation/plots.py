"""``results.png`` of an evaluation: one panel per measure, agents as horizontal bars.

Agents are rows (names on the left, wrapped at separators, so long names never
squeeze the bars); the panels share them: reward per game and the win rate,
then every game statistic that is not zero for all agents and the game's rates
(``stat_ratios``, e.g. OFC's points per Fantasyland hand). Bars are means,
whiskers 95% confidence intervals: for a proportion (the win rate, a statistic that
is 0 or 1 in every game, e.g. a foul) the Wilson interval, which stays inside [0, 1]
where mean +- t * se would cross 0. Each agent keeps its colour in every panel and
a field agent is grey. matplotlib is imported only here (the ``train`` extra).
"""
from __future__ import annotations

import math
import re
import textwrap
from pathlib import Path

import numpy as np

from parlor.training.evaluation.report import ratio_names

LABEL_WIDTH = 22  # characters per line of an agent's name
MAX_COLUMNS = 3


def wrap_label(name: str, width: int = LABEL_WIDTH) -> str:
    """``name`` on lines of at most ``width`` characters, broken after : / . _ - where possible."""
    lines: list[str] = []
    line = ""
    for piece in re.findall(r"[^:/._\-\s]+[:/._\-\s]*|[:/._\-\s]+", name):
        if line and len(line) + len(piece) > width:
            lines.append(line)
            line = ""
        line += piece
    lines.append(line)
    return "\n".join(part for chunk in lines for part in textwrap.wrap(chunk, width, break_on_hyphens=False) or [""])


Interval = float | tuple[float, float]  # a CI half-width, or the (low, high) bounds of a Wilson interval


def _wilson(entry: dict, key: str) -> tuple[float, float] | float:
    bounds = entry.get(key)
    return (float(bounds[0]), float(bounds[1])) if bounds and None not in bounds else math.nan


def panels(results: dict) -> list[tuple[str, list[float], list[Interval], tuple[float, float] | None]]:
    """(title, means, intervals, fixed x range) of every panel worth drawing. An interval is
    a CI half-width, or for a proportion (the win rate, a yes/no statistic) the bounds of
    its Wilson interval, which stay inside [0, 1]."""
    agents = results["agents"]
    out = [("reward per game", [a["mean_reward"] for a in agents], [a["ci95"] for a in agents], None),
           ("win rate (best reward at the table)", [a["win_rate"] for a in agents],
            [_wilson(a, "win_rate_wilson95") for a in agents], (0.0, 1.0))]
    for name in sorted({k for a in agents for k in a["stats"]}):
        means = [a["stats"].get(name, {}).get("mean", math.nan) for a in agents]
        if all(m == 0 or math.isnan(m) for m in means):
            continue  # a statistic that never happened says nothing about the agents
        entries = [a["stats"].get(name, {}) for a in agents]
        if all("wilson95" in e for e in entries):
            out.append((f"{name} (rate)", means, [_wilson(e, "wilson95") for e in entries], (0.0, 1.0)))
        else:
            out.append((name, means, [e.get("ci95", math.nan) for e in entries], None))
    for name in ratio_names(agents):  # a rate with no hands to count (nan for every agent) is left out
        means = [a["ratios"].get(name, {}).get("mean", math.nan) for a in agents]
        if all(m is None or math.isnan(m) for m in means):
            continue
        entries = [a["ratios"].get(name, {}) for a in agents]
        if all("wilson95" in e for e in entries):  # a proportion of counts: Wilson, inside [0, 1]
            out.append((name, means, [_wilson(e, "wilson95") for e in entries], (0.0, 1.0)))
        else:
            out.append((name, means, [e.get("ci95", math.nan) for e in entries], None))
    return out


def whiskers(values: list[float], intervals: list[Interval]) -> np.ndarray:
    """matplotlib's 2 x N ``xerr`` (below, above each bar) of the intervals; 0 where unknown."""
    out = np.zeros((2, len(values)))
    for i, (v, c) in enumerate(zip(values, intervals)):
        if isinstance(c, tuple):
            out[:, i] = (v - c[0], c[1] - v)
        elif c is not None and not math.isnan(c):
            out[:, i] = c
    return np.maximum(out, 0.0)


def plot_results(path: Path, results: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    agents = results["agents"]
    labels = [wrap_label(a["agent"]) for a in agents]
    drawn = panels(results)
    rows = math.ceil(len(drawn) / MAX_COLUMNS)
    cols = math.ceil(len(drawn) / rows)  # 4 panels as 2 x 2, not 3 + 1
    lines_per_label = max(label.count("\n") + 1 for label in labels)
    row_height = 0.9 + len(agents) * (0.22 + 0.16 * lines_per_label)
    label_width = 0.35 + 0.075 * max(len(line) for label in labels for line in label.split("\n"))
    fig, axes = plt.subplots(rows, cols, figsize=(label_width + 3.3 * cols, 1.0 + rows * row_height),
                             sharey=True, squeeze=False, layout="constrained")
    palette = plt.get_cmap("tab10").colors  # type: ignore[attr-defined]  # a ListedColormap; typed as the base class
    colors = [palette[i % len(palette)] for i in range(len(agents))]
    if results.get("field") is not None:
        colors[-1] = (0.6, 0.6, 0.6)
    y = list(range(len(agents)))
    for ax in axes.flat[len(drawn):]:
        ax.set_visible(False)
    for ax, (title, means, cis, xlim) in zip(axes.flat, drawn):
        values = [0.0 if (m is None or math.isnan(m)) else m for m in means]
        errs = whiskers(values, cis)
        ax.barh(y, values, xerr=errs if errs.any() else None, color=colors, alpha=0.85, capsize=3,
                error_kw={"linewidth": 1})
        ax.axvline(0.0, color="black", linewidth=0.6)
        ax.set_title(title, fontsize=10)
        ax.grid(axis="x", alpha=0.3)
        if xlim is not None:
            ax.set_xlim(*xlim)
    axes[0][0].set_yticks(y, labels)
    axes[0][0].invert_yaxis()  # the first agent on top, in the order they were listed
    for row in axes:
        row[0].tick_params(axis="y", labelsize=9)
    options = ", ".join(f"{k}={v}" for k, v in (results.get("options") or {}).items())
    title = f"{results['env']}: {results['episodes']} episodes on duplicate deals (bars: mean, whiskers: 95% CI; rates: Wilson)"
    width_chars = int((label_width + 3.3 * cols) * 14)
    fig.suptitle("\n".join([title, *textwrap.wrap(options, width_chars)]), fontsize=10)
    fig.savefig(path, dpi=100, format="png")
    plt.close(fig)
