"""learning_curve.png reads at a glance: small multiples two to a row at a readable size,
one colour per series in every panel, no panel for a statistic that never changes."""
from __future__ import annotations

import pytest

from parlor.training.learning.learner_eval import curve_panels, curve_series, plot_learning_curve


def history_of(steps=(0, 2048, 4096, 6144)) -> tuple[list[dict], list[dict]]:
    """A Buffalo Bill run: chips_left is 0 in every evaluation and baseline."""
    history = [{"step": s, "agent": "learner", "opponent": "heuristic", "mean": -20 + 3 * k, "ci": 4.0, "n": 40,
                "stat_total": 60 + 2 * k, "stat_chips_left": 0.0, "stat_scratched": 6 - 0.5 * k}
               for k, s in enumerate(steps)]
    history += [{**r, "opponent": "random", "mean": r["mean"] + 30} for r in history]
    baselines = [{"step": 0, "agent": agent, "opponent": opponent, "mean": m, "ci": 3.0, "n": 40,
                  "stat_total": t, "stat_chips_left": 0.0, "stat_scratched": 5.0}
                 for agent, m, t in (("heuristic", 0.0, 66.6), ("random", -35.0, 40.0))
                 for opponent in ("heuristic", "random")]
    return history, baselines


def test_a_statistic_that_never_changes_gets_no_panel() -> None:
    history, baselines = history_of()
    assert curve_panels(history, baselines) == ["reward", "total", "scratched"]


def test_every_series_has_its_own_label_and_so_its_own_colour() -> None:
    history, baselines = history_of()
    series = curve_series(history, baselines)
    assert series == ["learner vs heuristic", "learner vs random", "heuristic vs heuristic", "random vs heuristic",
                      "heuristic vs random", "random vs random"]
    assert len(set(series)) == len(series)


def test_the_plot_is_a_grid_of_readable_small_multiples(tmp_path) -> None:
    pytest.importorskip("matplotlib")
    from PIL import Image

    history, baselines = history_of()
    path = tmp_path / "learning_curve.png"
    plot_learning_curve(str(path), "buffalo_bill_v0 {\"chips\": 12}", history, baselines,
                        train_curve=[(1000, -30.0), (3000, -20.0), (5000, -12.0)])
    with Image.open(path) as image:
        width, height = image.size
        colours = {c for _, c in image.convert("RGB").getcolors(1 << 20)}
    assert 800 <= width <= 1100 and 600 <= height <= 900  # 2 x 2 panels (3 used), not 2101 x 462 in a row
    tab10 = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189), (140, 86, 75)]
    near = lambda c: any(sum((a - b) ** 2 for a, b in zip(c, p)) < 30 ** 2 for p in colours)  # noqa: E731
    assert all(near(c) for c in tab10), "each of the 6 series in its own colour"


def test_a_solo_game_and_an_empty_history_still_plot(tmp_path) -> None:
    pytest.importorskip("matplotlib")
    solo = [{"step": s, "agent": "learner", "opponent": "solo", "mean": s / 1000, "ci": float("nan"), "n": 4}
            for s in (0, 100, 200)]
    plot_learning_curve(str(tmp_path / "solo.png"), "solo", solo, [{**solo[0], "agent": "heuristic"}])
    plot_learning_curve(str(tmp_path / "empty.png"), "empty", [], [])
    assert (tmp_path / "solo.png").stat().st_size > 0 and (tmp_path / "empty.png").stat().st_size > 0


def test_a_legend_of_long_labels_stays_inside_the_figure(tmp_path, monkeypatch) -> None:
    # opponents named by policy path: three columns of them ran off both edges
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from parlor.training.learning.learner_eval import legend_columns

    opponent = "ppo:agents/pretrained/ofc_pineapple_multihand.zip"
    history = [{"step": s, "agent": "learner", "opponent": opponent, "mean": 10.0 + s / 1e5, "ci": 3.0, "n": 100,
                "stat_foul": 0.2 + s / 1e7} for s in (0, 100000, 200000)]
    baselines = [{"step": 0, "agent": agent, "opponent": opponent, "mean": m, "ci": 2.0, "n": 100, "stat_foul": f}
                 for agent, m, f in (("untrained", -39.0, 0.7), ("heuristic", -8.0, 0.0))]
    figures = []
    monkeypatch.setattr(plt, "close", figures.append)
    plot_learning_curve(str(tmp_path / "curve.png"), "ofc_v0", history, baselines, train_curve=[(1000, -10.0)])
    fig = figures[0]
    fig.canvas.draw()
    box, legend = fig.bbox, fig.legends[0].get_window_extent()
    assert box.x0 <= legend.x0 and legend.x1 <= box.x1, "the legend is cut at the figure's edges"
    assert legend_columns(["short", "labels", "fit"], 9.2) == 3
    assert legend_columns([f"learner vs {opponent}"] * 4, 9.2) == 1
    assert legend_columns([], 9.2) == 1
