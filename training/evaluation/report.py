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
        lines += ["", "Rates (ratio of sums over every seat an agent played, 95% CI):", "",
                  "| " + " | ".join(rate_header) + " |", "|" + "---|" * len(rate_header)]
        lines += ["| " + " | ".join(row) + " |" for row in rate_rows]
    if len(results["matchups"]) > 1:
        lines += ["", "Matchups (mean reward per game, 95% CI):", ""]
        lines += [f"- {_matchup_line(m).strip()}" for m in results["matchups"]]
    dup = "pre-sampled decks" if results.get("duplicate_decks") else "shared game seeds"
    lines += ["", f"{results['episodes']} episodes, duplicate deals ({dup}), seed {results['seed']}; "
              f"parlor {results['version']}, git {results['git_revision']}."]
    lines += [f"\n**Warning:** {w}" for w in results.get("warnings", [])]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- terminal
def table_rows(results: dict) -> tuple[list[str], list[list[str]]]:
    agents = results["agents"]
    stat_names = sorted({k for a in agents for k in a["stats"]})
    show_elo = len(agents) > 2
    header = ["agent", "seat-games", "reward/game (95% CI)", "win rate"] + (["Elo"] if show_elo else []) + stat_names
    rows = []
    for a in agents:
        row = [a["agent"], str(a["seat_games"]), ci_text(a["mean_reward"], a["ci95"]), f"{a['win_rate']:.3f}"]
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
    rows = [[a["agent"], *(ci_text(a["ratios"][k]["mean"], a["ratios"][k]["ci95"]) if k in a["ratios"] else "-"
                           for k in rates)] for a in agents]
    return ["agent", *rates], rows


def print_tables(results: dict, file: Any = None) -> None:
    header, rows = table_rows(results)
    rate_header, rate_rows = ratio_rows(results)
    title = f"{results['env']} {results.get('options') or ''}: {results['episodes']} episodes, {timing_text(results)}"
    matchups = results["matchups"] if len(results["matchups"]) > 1 else []
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        print(title, file=file)
        for row in [header, *rows]:
            print("  ".join(f"{c:>14s}" for c in row), file=file)
        for row in [rate_header, *rate_rows] if rate_rows else []:
            print("  ".join(f"{c:>16s}" for c in row), file=file)
        for m in matchups:
            print(_matchup_line(m), file=file)
        for line in _paired_lines(results) + [f"warning: {w}" for w in results.get("warnings", [])]:
            print(line, file=file)
        return
    import sys

    stream = file or sys.stdout
    wide = None if getattr(stream, "isatty", lambda: False)() else max(100, min(200, 24 * len(header)))
    console = Console(file=file, width=wide)  # logs and pipes get a table wide enough to read
    table = Table(title=title)
    for i, h in enumerate(header):
        table.add_column(h, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*row)
    console.print(table)
    if rate_rows:
        rates = Table(title="rates: ratio of sums over the agent's seats (95% CI)")
        for i, h in enumerate(rate_header):
            rates.add_column(h, justify="left" if i == 0 else "right")
        for row in rate_rows:
            rates.add_row(*row)
        console.print(rates)
    for m in matchups:
        console.print(_matchup_line(m))
    for line in _paired_lines(results):
        console.print(line)
    for warning in results.get("warnings", []):
        console.print(f"[yellow]warning:[/yellow] {warning}", highlight=False)


def timing_text(results: dict) -> str:
    timing = results["timing"]
    resumed = f", resumed after {timing['deals_resumed']} deals" if timing["deals_resumed"] else ""
    return f"{timing['seconds']} s{resumed}"


def _paired_lines(results: dict) -> list[str]:
    """Paired differences per deal (same cards), when the evaluation has them."""
    pairs = [p for p in results.get("paired", []) if p["mean"] >= 0]
    if not pairs:
        return []
    return ["paired differences per deal (same cards, 95% CI):"] + [
        f"  {p['agent']} - {p['minus']}: {ci_text(p['mean'], p['ci95'])} over {p['deals']} deals" for p in pairs]


def _matchup_line(m: dict) -> str:
    parts = [f"{name} {ci_text(v['mean'], v['ci95'])}" for name, v in m["mean_reward"].items()]
    return f"  {' vs '.join(m['agents'])} ({m['episodes']} episodes): " + ", ".join(parts)


@contextlib.contextmanager
def progress_bar(description: str, enabled: bool = True) -> Iterator[Callable[[int, int], None]]:
    """A rich progress bar over duplicate deals; yields ``update(done, total)``."""
    if not enabled:
        yield lambda done, total: None
        return
    try:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    except ImportError:
        yield lambda done, total: None
        return
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  transient=True) as bar:
        task = bar.add_task(description, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update
