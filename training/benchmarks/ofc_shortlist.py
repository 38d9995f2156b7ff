"""How well a policy shortlists the OFC expert's placements (``parlor bench --ofc-shortlist``).

A policy file with a shortlist (``late_planner.shortlist``, :mod:`parlor.agents.policy_planner`)
hands its planner only the network's K most probable placements of a turn's cards
(:func:`parlor.agents.ofc.shortlist.network_shortlist`), so the planner plays no better
than the best of them. The study takes the expert's own decisions in seeded deals (the
positions of the misplay study, :func:`~parlor.training.benchmarks.ofc_misplays.collect_positions`:
the expert at its default budget in every seat) and finds the rank of the expert's
placement in the policy's list, by street: the share of decisions whose placement is
among the top K, for each K, with 95% CIs over deals (a deal's decisions are not
independent). Same seed, same numbers: nothing reads a clock.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from parlor import envs
from parlor.agents.ofc.shortlist import network_shortlist
from parlor.envs.ofc_outlook.rollouts import plans_of
from parlor.training.benchmarks.ofc_misplay_kinds import STREETS, street
from parlor.training.benchmarks.ofc_misplays import StudyConfig, collect_positions
from parlor.training.evaluation.stats import ratio_ci

SIZES = (1, 2, 4, 8, 16, 32)


@dataclass(frozen=True)
class Ranked:
    """One expert decision: its deal, street, and the rank (0 = first) of the expert's
    placement in the policy's list of ``max(SIZES)`` (None: not in it)."""

    deal: int
    street: str
    candidates: int
    rank: int | None


def rank_decisions(policy: str | Path, config: StudyConfig, sizes: Sequence[int] = SIZES) -> list[Ranked]:
    """Each decision of the study's deals, ranked in the shortlist of the policy at ``policy``
    (a policy file of the study's game: its options decide the observation)."""
    from parlor.agents.policy import PolicyAgent

    game = envs.make_game("ofc_v0", **dict(config.options))
    agent = PolicyAgent.from_file(policy, game)
    out = []
    for position in collect_positions(config):
        dests = [tuple(d) for d in plans_of(position.view).dests]
        listed = [dests[i] for i in network_shortlist(position.view, dests, agent.view_logits, max(sizes))]
        rank = listed.index(position.played) if position.played in listed else None
        out.append(Ranked(position.deal, street(position.view), position.candidates, rank))
    return out


def report(config: StudyConfig, policy: str | Path, ranked: Sequence[Ranked], sizes: Sequence[int] = SIZES) -> list[str]:
    """A table: decisions by street, and for each K the share whose expert placement the top K holds."""
    lines = [f"OFC {dict(config.options)}: {config.deals} deals (seed {config.seed}), expert:{config.default} in "
             f"every seat; how often {policy}'s K most probable placements hold the expert's (95% CIs over deals)",
             f"{'street':12s} {'decisions':>9s} {'candidates':>10s} " + " ".join(f"{'top ' + str(k):>13s}" for k in sizes)]
    for label in ("all", *STREETS):
        chosen = [r for r in ranked if label in ("all", r.street)]
        if not chosen:
            continue
        deals = sorted({r.deal for r in chosen})
        count = [sum(r.deal == d for r in chosen) for d in deals]
        cells = []
        for k in sizes:
            hits = [sum(r.deal == d and r.rank is not None and r.rank < k for r in chosen) for d in deals]
            share, ci = ratio_ci(hits, count)
            cells.append(f"{100 * share:6.1f}% ± {100 * ci:4.1f}")
        mean_candidates = sum(r.candidates for r in chosen) / len(chosen)
        lines.append(f"{label:12s} {len(chosen):9d} {mean_candidates:10.1f} " + " ".join(f"{c:>13s}" for c in cells))
    return lines
