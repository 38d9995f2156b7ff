"""results.png stays readable: agents as rows with wrapped names, one win-rate panel, no
panel for a statistic that is zero for every agent."""
from __future__ import annotations

import math

import pytest

from parlor.training.evaluation.plots import LABEL_WIDTH, panels, plot_results, wrap_label


def fake_results(names: list[str], stats: dict[str, list[float]]) -> dict:
    agents = [{"agent": n, "mean_reward": float(i) - 1.5, "ci95": 0.4, "win_rate": 0.1 * i,
               "stats": {k: {"mean": v[i], "ci95": 0.0} for k, v in stats.items()}} for i, n in enumerate(names)]
    return {"env": "ofc_v0", "options": {"variant": "pineapple", "features": True}, "episodes": 60,
            "agents": agents, "field": None}


def test_wrap_label_breaks_long_names_at_separators() -> None:
    label = wrap_label("ppo:runs/train/ofc_pineapple_quick-20250101-120000/checkpoints/latest")
    lines = label.split("\n")
    assert all(len(line) <= LABEL_WIDTH for line in lines) and len(lines) > 1
    assert "".join(lines) == "ppo:runs/train/ofc_pineapple_quick-20250101-120000/checkpoints/latest"
    assert lines[0].endswith(("/", ":", "_", "-", "."))
    assert wrap_label("heuristic") == "heuristic"


def test_panels_are_reward_win_rate_and_the_statistics_that_happened() -> None:
    results = fake_results(["a", "b", "c"], {"fantasyland": [0.0, 0.0, 0.0], "foul": [0.0, 0.2, 0.7],
                                             "royalties": [1.0, math.nan, 0.0]})
    titles = [title for title, *_ in panels(results)]
    assert titles == ["reward per game", "win rate (best reward at the table)", "foul", "royalties"]


@pytest.mark.parametrize("count", [2, 8])
def test_the_plot_fits_any_number_of_agents_and_long_names(tmp_path, count) -> None:
    pytest.importorskip("matplotlib")
    from PIL import Image

    names = [f"agent_{i}_with_a_rather_long_descriptive_name" if i % 2 else f"a{i}" for i in range(count)]
    path = tmp_path / "results.png"
    plot_results(path, fake_results(names, {"foul": [0.1] * count, "drop": [0.0] * count}))
    with Image.open(path) as image:
        width, height = image.size
    assert 600 <= width <= 1600 and 250 <= height <= 250 + 70 * count  # rows grow with agents, width does not


def test_the_games_rates_get_a_panel_each_after_the_statistics_unless_never_measured() -> None:
    results = fake_results(["a", "b"], {"foul": [0.1, 0.2]})
    rates = {"fl_entry_rate": [0.01, 0.02], "points_per_fl_hand": [math.nan, math.nan], "fl_stay_rate": [0.0, 0.5]}
    for i, agent in enumerate(results["agents"]):
        agent["ratios"] = {k: {"mean": v[i], "ci95": 0.01} for k, v in rates.items()}
    drawn = panels(results)
    assert [title for title, *_ in drawn][2:] == ["foul", "fl_entry_rate", "fl_stay_rate"]  # no FL hand: no panel
    assert drawn[3][1:3] == ([0.01, 0.02], [0.01, 0.01])


def test_proportions_get_wilson_whiskers_that_stay_inside_0_1() -> None:
    from parlor.training.evaluation.plots import whiskers

    results = fake_results(["a", "b"], {"foul": [0.0, 0.05], "royalties": [1.0, 2.0]})
    for agent, bounds in zip(results["agents"], [(0.0, 0.2), (0.01, 0.3)]):
        agent["win_rate_wilson95"] = [0.0, 0.45]
        agent["stats"]["foul"]["wilson95"] = list(bounds)
    drawn = {title: (means, cis) for title, means, cis, _ in panels(results)}
    assert set(drawn) == {"reward per game", "win rate (best reward at the table)", "foul (rate)", "royalties"}
    means, cis = drawn["foul (rate)"]
    errs = whiskers(means, cis)
    lows, highs = [m - e for m, e in zip(means, errs[0])], [m + e for m, e in zip(means, errs[1])]
    assert lows == pytest.approx([0.0, 0.01]) and highs == pytest.approx([0.2, 0.3])
    assert min(lows) >= 0.0 and max(highs) <= 1.0
    assert whiskers([1.0], [0.5]).tolist() == [[0.5], [0.5]]  # a CI half-width stays symmetric


def test_a_rate_of_counts_is_drawn_with_its_wilson_bounds_and_other_rates_with_their_ci() -> None:
    results = fake_results(["a", "b"], {})
    for agent, entry in zip(results["agents"], [0.004, 0.02]):
        agent["ratios"] = {"fl_entry_rate": {"mean": entry, "ci95": 0.01, "wilson95": [0.001, entry + 0.02]},
                           "royalties_per_hand": {"mean": 2.0, "ci95": 0.3}}
    drawn = {title: (means, cis, limits) for title, means, cis, limits in panels(results)}
    means, cis, limits = drawn["fl_entry_rate"]
    assert cis == [(0.001, 0.024), (0.001, 0.04)] and limits == (0.0, 1.0)
    assert drawn["royalties_per_hand"][1:] == ([0.3, 0.3], None)
