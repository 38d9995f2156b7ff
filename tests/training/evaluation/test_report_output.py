"""Terminal output reads at a glance and is safe: the tables fit 80 columns with whole names
and named units, win rates carry Wilson intervals, the summary counts the deals the
progress bar counted, and names from files print with their control characters escaped."""
from __future__ import annotations

import io

import pytest

from parlor.training.evaluation.report import count_text, print_tables, terminal_tables
from parlor.training.evaluation.terminal import safe_text
from parlor.training.evaluation.tournament import summarize

NASTY = "evil\x1b]0;owned\x07\x1b[2J\u202e"  # retitle the terminal, clear the screen, reverse the text
STATS = ["fantasyland", "fl_hands", "fl_points", "fl_stays", "foul", "points", "regular_hands", "regular_points",
         "royalties", "won"]


def fake_results(names: list[str], deals: int = 12) -> dict:
    """A 3-seat evaluation summary with OFC's many statistics, one deal per job, 2 seatings."""
    records = []
    for deal in range(deals):
        for lineup in ([0, 1, 2], [2, 0, 1]):
            rewards = [float((deal + s) % 3 - 1) for s in range(3)]
            stats = {k: [float((deal * s) % 2) for s in range(3)] for k in STATS}
            records.append({"matchup": 0, "deal": deal, "lineup": lineup, "rewards": rewards, "stats": stats,
                            "steps": 30, "truncated": False})
    results = summarize(records, names, 3)
    results.update(env="ofc_v0", options={"num_hands": 6}, timing={"seconds": 1.5, "deals_played": deals,
                                                                    "deals_resumed": 0}, warnings=[])
    return results


def printed(results: dict) -> str:
    out = io.StringIO()  # not a terminal: the 80-column layout
    print_tables(results, file=out)
    return out.getvalue()


def test_tables_fit_80_columns_with_whole_names_and_units() -> None:
    names = ["heuristic", "random", "a_rather_long_policy_name_from_a_run"]
    text = printed(fake_results(names))
    assert max(len(line) for line in text.splitlines()) <= 80, text
    assert "heuristic " in text and "heurist…" not in text and "…" not in text
    titles_headers = " ".join(t + " " + " ".join(h) for t, h, _ in terminal_tables(fake_results(names)))
    assert "reward per episode" in titles_headers and "mean over episodes" in titles_headers  # units named
    assert "12 deals, 24 episodes" in text
    for stat in STATS:  # the statistics are rows, not ten more columns
        assert any(line.split("│")[1].strip() == stat for line in text.splitlines() if line.count("│") > 2), stat
    folded = "".join(line.split("│")[1].strip() for line in text.splitlines() if line.count("│") == 6)
    assert "a_rather_long_policy_name_from_a_run" in folded  # folded onto two lines, never cut


def test_win_rates_carry_wilson_intervals_inside_0_1() -> None:
    results = fake_results(["a", "b", "c"])
    for agent in results["agents"]:
        low, high = agent["win_rate_wilson95"]
        assert 0.0 <= low <= agent["win_rate"] <= high <= 1.0
        assert agent["stats"]["won"]["wilson95"][0] >= 0.0  # a yes/no statistic gets one too
        assert "wilson95" not in agent["stats"]["points"] or set(agent["stats"]["points"]) >= {"mean"}
    header, *_ = terminal_tables(results)[0][1:]
    assert "win rate (95% CI)" in header
    row = terminal_tables(results)[0][2][0]
    low, high = results["agents"][0]["win_rate_wilson95"]
    assert row[3] == f"{results['agents'][0]['win_rate']:.3f} ({low:.2f}-{high:.2f})"


def test_the_summary_counts_the_deals_the_progress_bar_counts() -> None:
    results = fake_results(["a", "b", "c"], deals=12)
    assert count_text(results) == "12 deals, 24 episodes"
    assert "12 deals, 24 episodes" in printed(results)
    one = {"episodes": 1, "timing": {"deals_played": 1, "deals_resumed": 0, "seconds": 1.0}}
    assert count_text(one) == "1 deal, 1 episode"  # never "1 deals"


@pytest.mark.parametrize("text,shown", [
    ("plain ♣ é", "plain ♣ é"),
    ("a\x1b[2Jb", "a\\x1b[2Jb"),
    ("title\x1b]0;x\x07", "title\\x1b]0;x\\x07"),
    ("rtl\u202eevil", "rtl\\u202eevil"),
    ("two\nlines\r", "two\\nlines\\r"),
])
def test_safe_text_escapes_every_control_character(text: str, shown: str) -> None:
    assert safe_text(text) == shown and safe_text(shown) == shown


def test_names_from_files_print_escaped_and_never_as_markup() -> None:
    results = fake_results([NASTY, "[red]x[/]", "c"])
    results["warnings"] = [f"agent {NASTY} is rough"]
    text = printed(results)
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "\\x1b" in text and "\\u202e" in text
    assert "[red]x[/]" in text  # shown as written, not taken for rich markup
