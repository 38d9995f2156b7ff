"""Evaluation output: the end-of-run files of a run folder (JSON, CSV, Markdown, the game
records of ``--record`` and the plot of :mod:`.plots`; the folder itself is
:mod:`.run_folder`), the terminal tables and the progress bar. rich is imported only
inside functions; without it the tables are plain text and there is no progress bar."""
from __future__ import annotations

import contextlib
import csv
import json
import math
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from parlor.envs.engine.words import count

REPO = Path(__file__).resolve().parents[2]


def git_revision() -> str:
    """``<commit>`` (plus ``-dirty`` with uncommitted changes), or why there is none."""
    def git(*cmd: str) -> str:
        return subprocess.run(["git", *cmd], cwd=REPO, capture_output=True, text=True, timeout=10).stdout.strip()

    try:
        rev = git("rev-parse", "HEAD")
        dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.SubprocessError):
        return "unknown (git not available)"
    if not rev or rev == "HEAD":
        return "unknown (no commit yet)"
    return rev + ("-dirty" if dirty else "")


def ci_text(mean: float, ci: float) -> str:
    if mean is None or math.isnan(mean):
        return "-"
    return f"{mean:+.3f}" if ci is None or math.isnan(ci) else f"{mean:+.3f} ± {ci:.3f}"


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


# what a reader looks for first in results.json: what was run, by which code
HEAD_KEYS = ("env", "options", "num_players", "games", "seed", "field", "seats", "record", "command", "version",
             "git_revision", "warnings")


def write_outputs(folder: Path, results: dict, plot: bool = True) -> None:
    """The end-of-run files of ``folder`` (:mod:`.run_folder`), each replaced atomically;
    ``results.json`` (the summary without the episode records) comes last. With
    ``results["record"]`` (``parlor eval --record``) ``records.jsonl`` holds every
    episode's game record, in the order of ``episodes.csv``."""
    from parlor.envs.engine.files import replace_atomically
    from parlor.training.evaluation.run_folder import RECORDS

    replace_atomically(folder / "episodes.csv", lambda p: write_episodes_csv(p, results["records"]))
    if results.get("record"):
        from parlor.envs.records import Record, write_records

        records = [Record.from_dict(r["record"]) for r in results["records"]]
        replace_atomically(folder / RECORDS, lambda p: write_records(p, records))
    replace_atomically(folder / "results.csv", lambda p: write_agents_csv(p, results["agents"]))
    replace_atomically(folder / "results.md", lambda p: p.write_text(markdown(results), encoding="utf-8"))
    if plot:
        from parlor.training.evaluation.plots import plot_results

        replace_atomically(folder / "results.png", lambda p: plot_results(p, results))
    summary = {k: results[k] for k in HEAD_KEYS if k in results}
    summary.update((k, v) for k, v in results.items() if k not in summary and k != "records")
    text = json.dumps(_json_safe(summary), indent=1)
    replace_atomically(folder / "results.json", lambda p: p.write_text(text, encoding="utf-8"))


def ratio_names(agents: list[dict]) -> list[str]:
    """The rates of the game's ``stat_ratios`` the summary holds, in the game's order."""
    return list(dict.fromkeys(k for a in agents for k in a.get("ratios", {})))


def write_agents_csv(path: Path, agents: list[dict]) -> None:
    stat_names = sorted({k for a in agents for k in a["stats"]})
    rates = ratio_names(agents)
    header = ["agent", "spec", "seat_games", "deals", "mean_reward", "ci95", "win_rate", "elo"]
    header += [f"{k}{suffix}" for k in stat_names + rates for suffix in ("", "_ci95")]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        for a in agents:
            row = [a["agent"], a.get("spec", ""), a["seat_games"], a["deals"], a["mean_reward"], a["ci95"],
                   a["win_rate"], a.get("elo", "")]
            for k in stat_names:
                s = a["stats"].get(k, {})
                row += [s.get("mean", ""), s.get("ci95", "")]
            for k in rates:
                s = a.get("ratios", {}).get(k, {})
                row += [s.get("mean", ""), s.get("ci95", "")]
            writer.writerow(row)


def write_episodes_csv(path: Path, records: list[dict]) -> None:
    """One row per seat of every episode, with the agent's name."""
    stat_names = sorted({k for r in records for k in r["stats"]})
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["job", "matchup", "deal", "seat", "agent", "agent_index", "reward", "steps", "truncated",
                         *stat_names])
        for r in records:
            for seat, agent in enumerate(r["lineup"]):
                stats = [r["stats"][k][seat] if k in r["stats"] else "" for k in stat_names]
                writer.writerow([r.get("job", ""), r["matchup"], r["deal"], seat, r["agents"][seat], agent,
                                 r["rewards"][seat], r["steps"], r["truncated"], *stats])


def markdown(results: dict) -> str:
    """The results as a Markdown table (for a README), with the command that made them."""
    header, rows = table_rows(results)
    lines = [f"`{results['command']}`", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    rate_header, rate_rows = ratio_rows(results)
    if rate_rows:
        lines += ["", "Rates (ratio of sums over every seat an agent played, 95% CI; a proportion of counts: Wilson bounds):", "",
                  "| " + " | ".join(rate_header) + " |", "|" + "---|" * len(rate_header)]
        lines += ["| " + " | ".join(row) + " |" for row in rate_rows]
    if len(results["matchups"]) > 1:
        lines += ["", "Matchups (mean reward per game, 95% CI):", ""]
        lines += [f"- {_matchup_line(m).strip()}" for m in results["matchups"]]
    dup = "pre-sampled decks" if results.get("duplicate_decks") else "shared game seeds"
    lines += ["", f"{count(results['episodes'], 'episode')}, duplicate deals ({dup}), seed {results['seed']}; "
              f"parlor {results['version']}, git {results['git_revision']}."]
    lines += [f"\n**Warning:** {w}" for w in results.get("warnings", [])]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- terminal
def table_rows(results: dict) -> tuple[list[str], list[list[str]]]:
    agents = results["agents"]
    stat_names = sorted({k for a in agents for k in a["stats"]})
    show_elo = len(agents) > 2
    header = ["agent", "seat-games", "reward/game (95% CI)", "win rate (95% CI)"] + (["Elo"] if show_elo else []) + stat_names
    rows = []
    for a in agents:
        row = [a["agent"], str(a["seat_games"]), ci_text(a["mean_reward"], a["ci95"]), win_text(a)]
        if show_elo:
            row.append(f"{a['elo']:.0f}")
        for k in stat_names:
            s = a["stats"].get(k)
            row.append("-" if s is None else f"{s['mean']:.3f}")
        rows.append(row)
    return header, rows


def ratio_rows(results: dict) -> tuple[list[str], list[list[str]]]:
    """The table of the game's rates (``stat_ratios``), with their CIs; no rows without rates."""
    agents = results["agents"]
    rates = ratio_names(agents)
    if not rates:
        return [], []
    rows = [[a["agent"], *(_rate_text(a["ratios"][k]) if k in a["ratios"] else "-" for k in rates)] for a in agents]
    return ["agent", *rates], rows


def _rate_text(rate: dict) -> str:
    """A rate with its 95% interval: Wilson bounds for a proportion of counts, else mean +- CI."""
    bounds = rate.get("wilson95")
    if not bounds or None in bounds or any(math.isnan(b) for b in bounds) or math.isnan(rate["mean"]):
        return ci_text(rate["mean"], rate["ci95"])
    return f"{rate['mean']:.3f} ({bounds[0]:.3f}-{bounds[1]:.3f})"


TERMINAL_WIDTH = 80  # what a log or a pipe gets; a terminal gets its own width (no wider than the tables need)


def win_text(agent: dict) -> str:
    """``0.625 (0.31-0.86)``: the win rate and its 95% Wilson interval (inside [0, 1])."""
    rate, bounds = agent["win_rate"], agent.get("win_rate_wilson95")
    if rate is None or math.isnan(rate):
        return "-"
    if not bounds or None in bounds or any(math.isnan(b) for b in bounds):
        return f"{rate:.3f}"
    return f"{rate:.3f} ({bounds[0]:.2f}-{bounds[1]:.2f})"


def terminal_tables(results: dict) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of every terminal table, each narrow enough for 80 columns:
    the agents (reward, win rate, Elo), then the game's statistics with one column per agent
    (a statistic per row, so six OFC hands' many statistics do not widen the table), then
    the rates. Every name from the results passes :func:`~.terminal.safe_text`."""
    from parlor.training.evaluation.terminal import safe_text

    agents = results["agents"]
    names = [safe_text(a["agent"]) for a in agents]
    show_elo = len(agents) > 2
    header = ["agent", "seat-games", "reward per episode (95% CI)", "win rate (95% CI)"] + (["Elo"] if show_elo else [])
    rows = [[name, str(a["seat_games"]), ci_text(a["mean_reward"], a["ci95"]), win_text(a)]
            + ([f"{a['elo']:.0f}"] if show_elo else []) for name, a in zip(names, agents)]
    tables = [("agents", header, rows)]
    stat_names = sorted({k for a in agents for k in a["stats"]})
    if stat_names:
        stat_rows = [[safe_text(k), *("-" if a["stats"].get(k) is None else f"{a['stats'][k]['mean']:.3f}"
                                     for a in agents)] for k in stat_names]
        tables.append(("game statistics: mean over episodes of each seat's value at the end "
                       "(the game's State.stats; OFC averages its own over the hands of an episode)",
                       ["statistic", *names], stat_rows))
    rate_header, rate_rows = ratio_rows(results)
    if rate_rows:  # one rate per row, as the statistics
        tables.append(("rates: ratio of sums over the agent's seats (95% CI)", ["rate", *names],
                       [[safe_text(rate), *(row[j] for row in rate_rows)] for j, rate in enumerate(rate_header[1:], 1)]))
    return tables


def print_tables(results: dict, file: Any = None) -> None:
    """The results in the terminal: :func:`terminal_tables` (rich tables, plain text without
    rich), the matchups, paired differences and warnings. Names are printed as text, never
    as rich markup, and with control characters escaped."""
    from parlor.training.evaluation.terminal import safe_text

    tables = terminal_tables(results)
    title = (f"{safe_text(results['env'])} {safe_text(results.get('options') or '')}: "
             f"{count_text(results)}, {timing_text(results)}")
    matchups = results["matchups"] if len(results["matchups"]) > 1 else []
    notes = ([safe_text(_matchup_line(m)) for m in matchups] + [safe_text(x) for x in _paired_lines(results)])
    warnings = [safe_text(w) for w in results.get("warnings", [])]
    try:
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text
    except ImportError:
        print(title, file=file)
        for name, header, rows in tables:
            print(name, file=file)
            for row in [header, *rows]:
                print("  ".join(f"{c:>14s}" for c in row), file=file)
        for line in notes + [f"warning: {w}" for w in warnings]:
            print(line, file=file)
        return
    import sys

    stream = file or sys.stdout
    width = None if getattr(stream, "isatty", lambda: False)() else TERMINAL_WIDTH
    console = Console(file=file, width=width, markup=False, highlight=False)
    console.print(Text(title))
    for name, header, rows in tables:
        table = Table(title=Text(name))
        for i, h in enumerate(header):
            # names fold onto a second line rather than end in "..."; numbers stay whole
            table.add_column(Text(h), justify="left" if i == 0 else "right", overflow="fold")
        for row in rows:
            table.add_row(*(Text(c) for c in row))
        console.print(table)
    for line in notes:
        console.print(Text(line))
    for warning in warnings:
        console.print(Text.assemble(("warning: ", "yellow"), warning))


def count_text(results: dict) -> str:
    """``120 deals, 240 episodes``: the deals the progress bar counted, then the episodes they
    held (a deal is played once per seating of its matchup)."""
    timing = results.get("timing") or {}
    deals = timing.get("deals_played", 0) + timing.get("deals_resumed", 0)
    episodes = count(results["episodes"], "episode")
    return f"{count(deals, 'deal')}, {episodes}" if deals else episodes


def timing_text(results: dict) -> str:
    timing = results["timing"]
    resumed = f", resumed after {count(timing['deals_resumed'], 'deal')}" if timing["deals_resumed"] else ""
    return f"{timing['seconds']} s{resumed}"


def _paired_lines(results: dict) -> list[str]:
    """Paired differences per deal (same cards), when the evaluation has them."""
    pairs = [p for p in results.get("paired", []) if p["mean"] >= 0]
    if not pairs:
        return []
    return ["paired differences per deal (same cards, 95% CI):"] + [
        f"  {p['agent']} - {p['minus']}: {ci_text(p['mean'], p['ci95'])} over {count(p['deals'], 'deal')}" for p in pairs]


def _matchup_line(m: dict) -> str:
    parts = [f"{name} {ci_text(v['mean'], v['ci95'])}" for name, v in m["mean_reward"].items()]
    return f"  {' vs '.join(m['agents'])} ({count(m['episodes'], 'episode')}): " + ", ".join(parts)


@contextlib.contextmanager
def progress_bar(description: str, enabled: bool = True) -> Iterator[Callable[[int, int], None]]:
    """A rich progress bar over duplicate deals (``3/120 deals``, as the summary's first count);
    yields ``update(done, total)``."""
    if not enabled:
        yield lambda done, total: None
        return
    from parlor.training.evaluation.terminal import safe_text

    try:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    except ImportError:
        yield lambda done, total: None
        return
    with Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TextColumn("deals"),
                  TimeRemainingColumn(),
                  transient=True) as bar:
        task = bar.add_task(safe_text(description), total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update
