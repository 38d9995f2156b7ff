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

With ``worlds`` it also prices the lists: each decision's candidates in the policy's top
``max(SIZES)`` and the expert's placement are scored by the expert's own candidate scoring
(``OFCExpert._scores``) on ``worlds`` fresh worlds common to all of them, and the loss of
the top K is the best score of them all minus the best of the top K: what a planner that
judged as well as that scoring would give up by choosing among the policy's K, beside
what the expert's own placement gives up (points per decision, in the expert's model).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from parlor import envs
from parlor.agents.ofc.expert import OFCExpert, turn_setup
from parlor.agents.ofc.shortlist import network_shortlist
from parlor.envs.ofc_outlook.rollouts import plans_of
from parlor.training.benchmarks.ofc_misplay_kinds import STREETS, street
from parlor.training.benchmarks.ofc_misplays import StudyConfig, collect_positions, position_seed
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
    losses: tuple[float, ...] | None = None   # per K of the sizes: the best score minus the top K's best
    expert_loss: float | None = None          # the best score minus the expert's placement's


def rank_decisions(policy: str | Path, config: StudyConfig, sizes: Sequence[int] = SIZES,
                   worlds: int | None = None) -> list[Ranked]:
    """Each decision of the study's deals, ranked in the shortlist of the policy at ``policy``
    (a policy file of the study's game: its options decide the observation), and with
    ``worlds`` priced (the module docstring)."""
    from parlor.agents.policy import PolicyAgent

    game = envs.make_game("ofc_v0", **dict(config.options))
    agent = PolicyAgent.from_file(policy, game)
    out = []
    for position in collect_positions(config):
        plans = plans_of(position.view)
        dests = [tuple(d) for d in plans.dests]
        listed = network_shortlist(position.view, dests, agent.view_logits, max(sizes))
        played = dests.index(position.played)
        rank = listed.index(played) if played in listed else None
        ranked = Ranked(position.deal, street(position.view), position.candidates, rank)
        if worlds is not None:
            ranked = priced(game, position.view, plans.array, ranked, listed, played, sizes, worlds,
                            position_seed(config.seed, *position.key, worlds))
        out.append(ranked)
    return out


def priced(game, view, candidates, ranked: Ranked, listed: Sequence[int], played: int, sizes: Sequence[int],
           worlds: int, seed: int) -> Ranked:
    """``ranked`` with its losses: the turn's ``candidates`` (``plans_of(view).array``) at
    ``listed`` (most probable first) and ``played`` (the expert's) scored on ``worlds`` worlds."""
    scored = sorted({*listed, played})
    values = OFCExpert(game, seed=seed)._scores(view, turn_setup(view), candidates[scored], view.unseen_cards(),
                                                 worlds)
    value = dict(zip(scored, values.tolist()))
    best = max(values)
    losses = tuple(best - max(value[i] for i in listed[:k]) for k in sizes)
    return replace(ranked, losses=losses, expert_loss=best - value[played])


def over_deals(items: Sequence[tuple[int, float]]) -> tuple[float, float]:
    """The mean of the (deal, value) items' values and its 95% CI over deals (a deal's items
    are not independent: the ratio of per-deal sums to per-deal counts)."""
    deals = sorted({deal for deal, _ in items})
    return ratio_ci([sum(x for deal, x in items if deal == d) for d in deals],
                    [sum(deal == d for deal, _ in items) for d in deals])


def report(config: StudyConfig, policy: str | Path, ranked: Sequence[Ranked], sizes: Sequence[int] = SIZES) -> list[str]:
    """A table: decisions by street, and for each K the share whose expert placement the top K holds."""
    lines = [f"OFC {dict(config.options)}: {config.deals} deals (seed {config.seed}), expert:{config.default} in "
             f"every seat; how often {policy}'s K most probable placements hold the expert's (95% CIs over deals)",
             f"{'street':12s} {'decisions':>9s} {'candidates':>10s} " + " ".join(f"{'top ' + str(k):>13s}" for k in sizes)]
    for label in ("all", *STREETS):
        chosen = [r for r in ranked if label in ("all", r.street)]
        if not chosen:
            continue
        cells = []
        for k in sizes:
            share, ci = over_deals([(r.deal, float(r.rank is not None and r.rank < k)) for r in chosen])
            cells.append(f"{100 * share:6.1f}% ± {100 * ci:4.1f}")
        mean_candidates = sum(r.candidates for r in chosen) / len(chosen)
        lines.append(f"{label:12s} {len(chosen):9d} {mean_candidates:10.1f} " + " ".join(f"{c:>13s}" for c in cells))
    if any(r.losses is not None for r in ranked):
        lines += loss_table(ranked, sizes)
    return lines


def loss_table(ranked: Sequence[Ranked], sizes: Sequence[int]) -> list[str]:
    """The priced decisions by street: the mean loss of the best of the top K, for each K,
    and of the expert's placement (95% CIs over deals)."""
    lines = ["value lost by the best of the policy's top K, and by the expert's own placement, against the best "
             "of both (points per decision in the expert's model; 95% CIs over deals)",
             f"{'street':12s} {'decisions':>9s} " + " ".join(f"{'top ' + str(k):>15s}" for k in sizes)
             + f" {'expert':>15s}"]
    # (deal, street, the K losses then the expert's) of each priced decision
    rows = [(r.deal, r.street, (*r.losses, r.expert_loss)) for r in ranked
            if r.losses is not None and r.expert_loss is not None]
    for label in ("all", *STREETS):
        chosen = [row for row in rows if label in ("all", row[1])]
        if not chosen:
            continue
        cells = []
        for i in range(len(sizes) + 1):
            mean, ci = over_deals([(deal, loss[i]) for deal, _, loss in chosen])
            cells.append(f"{mean:+7.3f} ± {ci:5.3f}")
        lines.append(f"{label:12s} {len(chosen):9d} " + " ".join(f"{c:>15s}" for c in cells))
    return lines
