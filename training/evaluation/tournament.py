"""Tournaments with seat rotation and duplicate deals: schedule, play, aggregate.

Schedule. With one agent it plays itself; in a one-seat game (solitaire)
every agent plays every deal alone; otherwise every pair of agents meets
(round robin; two agents: head to head). Two agents A, B at an n-seat table
sit in every rotation of "A against n-1 B" and of "B against n-1 A" (for two
or three seats that is every arrangement), so each agent plays each seat
equally often.

Duplicate deals (:mod:`parlor.training.evaluation.deals`): every lineup of
every matchup replays deal ``d``'s cards, so the luck of the deal cancels out.
Every episode's agent seeds are derived from (``seed``, deal, matchup, lineup),
so results do not depend on how the jobs are spread over worker processes.

Aggregation. An agent's sample for one deal of one matchup is its mean reward
over all the seats it held in that deal's lineups; the mean and the 95% CI
are taken over these samples. Win rate: the share of its seats that finished
with the best reward at the table (ties share the win). Pairwise results
(seat against seat, higher reward wins, equal is half) feed Bradley-Terry.
In a one-seat game the deal itself is the table: agents are compared on the
same cards.
"""
from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from parlor.agents.episodes import play_episode
from parlor.envs.engine.game import Game
from parlor.envs.records import record_episode
from parlor.training.evaluation.deals import deal_for
from parlor.training.evaluation.stats import (
    MIN_CI_SAMPLES,
    elo_ratings,
    mean_ci,
    ratio_ci,
    ratio_wilson,
    wilson_interval,
)


@dataclass(frozen=True)
class Job:
    """One duplicate deal of one matchup: played once per lineup."""

    matchup: int
    deal: int
    lineups: tuple[tuple[int, ...], ...]


def lineups_for(agents: Sequence[int], num_seats: int) -> list[tuple[int, ...]]:
    """Seat arrangements (agent index per seat) for one matchup."""
    if num_seats == 1:
        return [(a,) for a in agents]
    if len(agents) == 1:
        return [(agents[0],) * num_seats]
    if len(agents) != 2:
        raise ValueError(f"a matchup at a {num_seats}-seat table is one or two agents, got {len(agents)}")
    out: list[tuple[int, ...]] = []
    for lone, rest in ((agents[0], agents[1]), (agents[1], agents[0])):
        for seat in range(num_seats):
            lineup = tuple(lone if s == seat else rest for s in range(num_seats))
            if lineup not in out:
                out.append(lineup)
    return out


def matchups_for(num_agents: int, num_seats: int) -> list[tuple[int, ...]]:
    if num_agents == 1 or num_seats == 1:
        return [tuple(range(num_agents))]
    return list(itertools.combinations(range(num_agents), 2))


def schedule(num_agents: int, num_seats: int, games: int) -> list[Job]:
    """Jobs for at least ``games`` episodes per matchup (rounded up to whole deals)."""
    jobs = []
    for m, agents in enumerate(matchups_for(num_agents, num_seats)):
        lineups = tuple(lineups_for(agents, num_seats))
        for d in range(max(1, math.ceil(games / len(lineups)))):
            jobs.append(Job(m, d, lineups))
    return jobs


def field_schedule(num_agents: int, num_seats: int, games: int, seats: Sequence[int]) -> list[Job]:
    """Jobs of a field evaluation: agent ``num_agents`` is the field; every other agent
    plays alone in each of ``seats`` against the field in all the other seats, on the
    same deals (deal ``d`` is the same cards for every agent)."""
    field = num_agents
    jobs = []
    for a in range(num_agents):
        lineups = tuple(tuple(a if q == s else field for q in range(num_seats)) for s in seats)
        for d in range(max(1, math.ceil(games / len(lineups)))):
            jobs.append(Job(a, d, lineups))
    return jobs


@dataclass(frozen=True)
class Recording:
    """Record every episode as a game record (:mod:`parlor.envs.records`; its env is the
    game's ``Game.name``) under these names."""

    names: tuple[str, ...]    # display name by agent index


def agent_seeds(seed: int, job: Job, lineup_index: int, num_seats: int) -> list[int]:
    ss = np.random.SeedSequence([seed, job.deal, 1, job.matchup, lineup_index])
    return [int(s) for s in ss.generate_state(num_seats, dtype=np.uint64)]


def run_job(game: Game, seat_agent: Callable[[int, int], Any], job: Job, seed: int,
            recording: Recording | None = None) -> list[dict]:
    """Play every lineup of ``job``; ``seat_agent(agent_index, seat)`` returns a ready agent.
    With ``recording`` each episode's dict also holds its game record (``"record"``: the
    JSON object of :meth:`~parlor.envs.records.Record.to_dict`, made from the final state)."""
    game_seed, decks = deal_for(game, seed, job.deal)
    records = []
    for i, lineup in enumerate(job.lineups):
        seats = [seat_agent(a, s) for s, a in enumerate(lineup)]
        result = play_episode(game, seats, game_seed, decks, agent_seeds(seed, job, i, len(lineup)))
        records.append({
            "matchup": job.matchup, "deal": job.deal, "lineup": list(lineup),
            "rewards": result.rewards, "stats": result.stats,
            "steps": result.steps, "truncated": result.truncated,
        })
        if recording is not None:
            records[-1]["record"] = record_episode(
                game, result.state, seed=game_seed, agents=[recording.names[a] for a in lineup],
                tags={"matchup": job.matchup, "deal": job.deal, "lineup": i}).to_dict()
    return records


# ---------------------------------------------------------------- aggregation
def _tables(records: list[dict], num_seats: int) -> Iterable[list[tuple[int, float]]]:
    """Groups of (agent, reward) that competed with each other."""
    if num_seats > 1:
        for r in records:
            yield list(zip(r["lineup"], r["rewards"]))
        return
    by_deal: dict[tuple[int, int], list[tuple[int, float]]] = defaultdict(list)
    for r in records:
        by_deal[(r["matchup"], r["deal"])].append((r["lineup"][0], r["rewards"][0]))
    yield from by_deal.values()


def pairwise_wins(records: list[dict], num_agents: int, num_seats: int) -> np.ndarray:
    wins = np.zeros((num_agents, num_agents))
    for table in _tables(records, num_seats):
        for (a, ra), (b, rb) in itertools.combinations(table, 2):
            if a == b:
                continue
            if ra > rb:
                wins[a, b] += 1
            elif rb > ra:
                wins[b, a] += 1
            else:
                wins[a, b] += 0.5
                wins[b, a] += 0.5
    return wins


def win_shares(records: list[dict], num_agents: int, num_seats: int) -> tuple[np.ndarray, np.ndarray]:
    """(wins, seats played) per agent; a seat tied for the best reward gets 1/ties."""
    wins, seats = np.zeros(num_agents), np.zeros(num_agents)
    for table in _tables(records, num_seats):
        best = max(r for _, r in table)
        tied = sum(1 for _, r in table if r == best)
        for a, r in table:
            seats[a] += 1
            if r == best:
                wins[a] += 1.0 / tied
    return wins, seats


def _share(records: list[dict], agent: int, stat: str) -> tuple[float, float] | None:
    """(count of 1s, seats) of ``agent``'s statistic ``stat`` when every seat's value is 0 or 1."""
    values = [r["stats"][stat][seat] for r in records if stat in r["stats"]
              for seat, a in enumerate(r["lineup"]) if a == agent]
    if not values or any(v not in (0, 1) for v in values):
        return None
    return float(sum(values)), float(len(values))


def _stat(key: str) -> Callable[[dict, int], float]:
    """Seat ``s``'s value of statistic ``key`` in a record (a :func:`deal_samples` key)."""
    return lambda r, s: r["stats"][key][s]


def deal_samples(records: list[dict], num_agents: int, key: Callable[[dict, int], float]) -> list[list[float]]:
    """Per agent: one sample per (matchup, deal) = mean of ``key(record, seat)`` over its seats."""
    acc: dict[tuple[int, int, int], list[float]] = defaultdict(list)
    for r in records:
        for seat, a in enumerate(r["lineup"]):
            acc[(a, r["matchup"], r["deal"])].append(key(r, seat))
    out: list[list[float]] = [[] for _ in range(num_agents)]
    for (a, _, _), values in sorted(acc.items()):
        out[a].append(float(np.mean(values)))
    return out


def summarize(records: list[dict], names: Sequence[str], num_seats: int,
              ratios: Mapping[str, tuple[str, str]] | None = None) -> dict:
    """Per-agent reward (mean, 95% CI), win rate, game statistics, Elo; per-matchup means.
    ``ratios`` (the game's ``stat_ratios``: name -> (numerator, denominator) statistics)
    adds per agent each rate as the ratio of the two statistics' sums over the agent's
    seats, with a 95% CI over the deals (:func:`~parlor.training.evaluation.stats.ratio_ci`)."""
    n = len(names)
    rewards = deal_samples(records, n, lambda r, s: r["rewards"][s])
    wins, seats = win_shares(records, n, num_seats)
    stat_names = sorted({k for r in records for k in r["stats"]})
    agents = []
    for i, name in enumerate(names):
        mean, ci = mean_ci(rewards[i])
        stats: dict[str, dict[str, Any]] = {}
        for k in stat_names:
            values = deal_samples([r for r in records if k in r["stats"]], n, _stat(k))[i]
            m, c = mean_ci(values)
            stats[k] = {"mean": m, "ci95": c}
            share = _share(records, i, k)
            if share is not None:  # a yes/no statistic (a foul, a win): its rate gets a Wilson interval
                stats[k]["wilson95"] = list(wilson_interval(*share))
        rates: dict[str, dict[str, Any]] = {}
        for k, (num, den) in (ratios or {}).items():
            having = [r for r in records if num in r["stats"] and den in r["stats"]]
            samples = [deal_samples(having, n, _stat(key))[i] for key in (num, den)]
            m, c = ratio_ci(*samples)
            rates[k] = {"mean": m, "ci95": c}
            bounds = ratio_wilson(*samples)
            if bounds is not None:  # a proportion of counts (entries per hand): its interval stays in [0, 1]
                rates[k]["wilson95"] = list(bounds)
        agents.append({
            "agent": name, "seat_games": int(seats[i]), "deals": len(rewards[i]),
            "mean_reward": mean, "ci95": ci,
            "win_rate": float(wins[i] / seats[i]) if seats[i] else math.nan,
            "win_rate_wilson95": list(wilson_interval(float(wins[i]), float(seats[i]))),
            "stats": stats,
            "ratios": rates,
        })
    wins_matrix = pairwise_wins(records, n, num_seats)
    if n > 1:
        for entry, elo in zip(agents, elo_ratings(wins_matrix)):
            entry["elo"] = float(elo)
    return {
        "agents": agents,
        "pairwise_wins": wins_matrix.tolist(),
        "matchups": _matchup_summaries(records, names),
        "episodes": len(records),
        "truncated": sum(1 for r in records if r["truncated"]),
    }


def paired_differences(records: list[dict], names: Sequence[str], evaluated: Sequence[int]) -> list[dict]:
    """Agent A minus agent B per deal (same cards for both), mean and 95% CI, for every
    ordered pair of ``evaluated`` agents: tighter than comparing two separate CIs."""
    per_deal: dict[int, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in records:
        for seat, a in enumerate(r["lineup"]):
            if a in evaluated:
                per_deal[a][r["deal"]].append(r["rewards"][seat])
    out = []
    for a, b in itertools.permutations(evaluated, 2):
        deals = sorted(set(per_deal[a]) & set(per_deal[b]))
        diffs = [float(np.mean(per_deal[a][d]) - np.mean(per_deal[b][d])) for d in deals]
        mean, ci = mean_ci(diffs)
        out.append({"agent": names[a], "minus": names[b], "deals": len(diffs), "mean": mean, "ci95": ci})
    return out


def _matchup_summaries(records: list[dict], names: Sequence[str]) -> list[dict]:
    out = []
    for m in sorted({r["matchup"] for r in records}):
        rs = [r for r in records if r["matchup"] == m]
        present = sorted({a for r in rs for a in r["lineup"]})
        samples = deal_samples(rs, len(names), lambda r, s: r["rewards"][s])
        entry = {"matchup": m, "agents": [names[a] for a in present], "deals": len({r["deal"] for r in rs}),
                 "episodes": len(rs), "mean_reward": {}}
        for a in present:
            mean, ci = mean_ci(samples[a])
            entry["mean_reward"][names[a]] = {"mean": mean, "ci95": ci}
        out.append(entry)
    return out


def small_sample_warnings(summary: dict) -> list[str]:
    """One warning naming the 95% CIs of ``summary`` (agents, matchups, paired differences)
    that rest on fewer than ``MIN_CI_SAMPLES`` deals; [] if none."""
    def deals(items: list[dict]) -> str:
        low, high = min(i["deals"] for i in items), max(i["deals"] for i in items)
        return f"{low}-{high} deals" if low != high else ("1 deal" if low == 1 else f"{low} deals")

    groups = []
    agents = [a for a in summary["agents"] if a["deals"] < MIN_CI_SAMPLES]
    if agents:
        who = "every agent" if len(agents) == len(summary["agents"]) else ", ".join(a["agent"] for a in agents)
        groups.append(f"{who} ({deals(agents)})")
    matchups = [m for m in summary["matchups"] if m["deals"] < MIN_CI_SAMPLES] if len(summary["matchups"]) > 1 else []
    if matchups:
        groups.append(f"{len(matchups)} matchups ({deals(matchups)})")
    paired = [p for p in summary.get("paired", []) if p["deals"] < MIN_CI_SAMPLES and p["mean"] >= 0]  # as shown
    if paired:
        groups.append(f"{len(paired)} paired differences ({deals(paired)})")
    if not groups:
        return []
    return [f"95% CIs resting on fewer than {MIN_CI_SAMPLES} deals are rough: {'; '.join(groups)}; raise --games"]
