"""What the OFC expert still misplays: its choices beside a much larger budget's (``parlor bench --ofc-misplays``).

The study owns three steps, each a pure function of its arguments and seeds (no clock):

1. :func:`collect_positions` plays seeded hands (or matches) of the expert at its default
   budget against itself and keeps every regular-turn decision with more than one
   candidate: the seat's View at the turn's first card and the placement it played;
2. :func:`compare` asks a fresh expert with a much larger budget for its placement of the
   same View; where the two differ, :func:`value_gap` scores *both* placements with the
   larger budget's own candidate scoring (``OFCExpert._scores``: sampled worlds, common
   to both) on fresh worlds, independent of those the larger expert chose on (reusing them
   would favour its choice), in ``batches`` independent batches, so the gap gets a
   standard error;
3. :func:`summary` gives the misplay rate and the mean gap per decision by street and by
   kind (:mod:`parlor.training.benchmarks.ofc_misplay_kinds`), :func:`by_turn` by the
   seat's turns still to play (the two middle turns of Pineapple apart: the first, with
   more candidates than the expert compares in full, is screened), with 95% CIs over deals
   (the decisions of one deal are not independent), and :func:`worst` the largest gaps
   drawn as text boards.

A gap is the larger budget's placement's value minus the default's, in points of the
expert's own showdown model: positive where the default misplayed. With ``out`` each
comparison is saved as it finishes (the file rewritten atomically), and a rerun of the
same study (or of one with more deals) skips those already there.
"""
from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from parlor import envs
from parlor.agents.episodes import play_until, seat_chooser
from parlor.agents.ofc.expert import DEFAULT_SAMPLES, OFCExpert, turn_setup
from parlor.envs.engine.files import atomic_write_text
from parlor.envs.engine.presenter import presenter_for
from parlor.envs.ofc.view import OFCView
from parlor.envs.ofc_outlook.rollouts import plans_of
from parlor.training.benchmarks.ofc_misplay_kinds import STREETS, describe, kind, street
from parlor.training.evaluation.stats import ratio_ci


@dataclass(frozen=True)
class StudyConfig:
    """One misplay study: ``deals`` seeded deals of ``options`` (a single hand or a match
    each) played by ``expert:default`` against itself, its decisions replayed by
    ``expert:big``; gaps over the larger budget's own number of worlds, in ``batches``."""

    options: tuple[tuple[str, Any], ...]   # game options, sorted (hashable, saved with the results)
    deals: int
    seed: int
    default: int = DEFAULT_SAMPLES
    big: int = 2048
    batches: int = 16

    def __post_init__(self) -> None:
        for name in ("deals", "default", "big", "batches"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"misplay study {name} must be a positive integer, got {value!r}")
        if self.big <= self.default:
            raise ValueError(f"the larger budget ({self.big}) must exceed the default ({self.default})")


@dataclass(frozen=True)
class Position:
    """A regular-turn decision of seeded expert play."""

    deal: int
    view: OFCView
    played: tuple[int, ...]    # the default expert's destinations of the pending cards
    candidates: int

    @property
    def key(self) -> tuple[int, int, int, int]:
        """(deal, hand, seat, cards the seat holds): unique within a study."""
        v = self.view
        return (self.deal, v.hand_index, v.player, sum(map(len, v.own_rows)) + len(v.discards))


@dataclass(frozen=True)
class Comparison:
    """A position's two choices and the value gap (the larger budget's minus the default's)."""

    key: tuple[int, int, int, int]
    street: str
    kind: str
    default: tuple[int, ...]
    big: tuple[int, ...]
    gap: float
    se: float
    values: tuple[float, float] | None   # the default's and the larger budget's mean scores (None where they agree)
    turns_left: int | None = None        # the seat's regular turns from this one to the hand's end (None: saved before)


class _Recorder(OFCExpert):
    """The expert, noting the View and its choice at every regular turn it plans."""

    def __init__(self, game, seed: int, samples: int, sink: list[tuple[OFCView, tuple[int, ...]]]):
        super().__init__(game, seed, samples)
        self.sink = sink

    def plan_regular_turn(self, view: OFCView) -> list[int]:
        plan = super().plan_regular_turn(view)
        self.sink.append((view, tuple(plan)))
        return plan


def position_seed(*parts: int) -> int:
    """A generator seed drawn from ``parts`` (the study's seed, a deal, a seat...): independent streams."""
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1, dtype=np.uint64)[0] >> 1)


def collect_positions(config: StudyConfig) -> list[Position]:
    """Every regular-turn decision with more than one candidate of ``config.deals`` seeded
    deals played by the default expert in every seat (deal ``d``: game seed
    ``[seed, d]``, seat ``p`` expert seed derived from ``(seed, d, p)``)."""
    game = envs.make_game("ofc_v0", **dict(config.options))
    out = []
    for d in range(config.deals):
        sink: list[tuple[OFCView, tuple[int, ...]]] = []
        agents = [_Recorder(game, position_seed(config.seed, d, p), config.default, sink) for p in range(game.num_players)]
        state = game.new_state(np.random.default_rng([config.seed, d]))
        play_until(state, seat_chooser(game, agents))
        for view, played in sink:
            count = len(plans_of(view).dests)
            if count > 1:
                out.append(Position(d, view, played, count))
    return out


def value_gap(game, view: OFCView, default: Sequence[int], big: Sequence[int], samples: int, batches: int,
              seed: int) -> tuple[float, float, tuple[float, float]]:
    """(mean value of ``big`` minus ``default``, its standard error, (their mean values))
    by the expert's candidate scoring at budget ``samples`` (its final number of worlds for
    the view's turn), split into ``batches`` independent batches of common worlds."""
    expert = OFCExpert(game, seed=seed, samples=samples)
    plans = plans_of(view)
    index = {d: i for i, d in enumerate(plans.dests)}
    pair = plans.array[[index[tuple(default)], index[tuple(big)]]]
    setup, unseen = turn_setup(view), view.unseen_cards()
    _, worlds = expert.samples_for(view, len(plans.dests))
    per = max(1, worlds // batches)
    scores = np.array([expert._scores(view, setup, pair, unseen, per) for _ in range(batches)])
    diffs = scores[:, 1] - scores[:, 0]
    se = float(diffs.std(ddof=1) / math.sqrt(batches)) if batches > 1 else math.nan
    return float(diffs.mean()), se, (float(scores[:, 0].mean()), float(scores[:, 1].mean()))


def compare_one(game, position: Position, config: StudyConfig) -> Comparison:
    """The larger budget's choice at ``position`` and, where it differs, the value gap."""
    view = position.view
    seed = position_seed(config.seed, *position.key)
    expert = OFCExpert(game, seed=seed, samples=config.big)
    big = tuple(expert.plan_regular_turn(view))
    if big == position.played:
        gap, se, values = 0.0, 0.0, None
    else:
        gap, se, values = value_gap(game, view, position.played, big, config.big, config.batches, seed + 1)
    return Comparison(position.key, street(view), kind(view, position.played, big), position.played, big,
                      gap, se, values, expert.turns_left(view))


def _load(out: Path | None, config: StudyConfig) -> dict[tuple, Comparison]:
    if out is None or not out.exists():
        return {}
    saved = json.loads(out.read_text())
    if saved["config"] != _config_json(config):
        raise SystemExit(f"{out} holds another study ({saved['config']}); give another --out or the same settings")
    done = {}
    for row in saved["comparisons"]:
        row = {**row, "key": tuple(row["key"]), "default": tuple(row["default"]), "big": tuple(row["big"]),
               "values": None if row["values"] is None else tuple(row["values"])}
        done[row["key"]] = Comparison(**row)
    return done


def _config_json(config: StudyConfig) -> dict:
    """The settings a saved comparison depends on: all but the number of deals (deal ``d``
    is the same in a study of more deals, so a larger study extends a smaller one)."""
    return {k: v for k, v in json.loads(json.dumps(asdict(config))).items() if k != "deals"}


def compare(config: StudyConfig, positions: Sequence[Position], out: Path | None = None,
            progress: Callable[[Comparison, int], None] | None = None) -> list[Comparison]:
    """The comparison of every position (in order); with ``out``, saved after each one and
    read back on a rerun (a saved choice that the replay no longer makes is an error)."""
    game = envs.make_game("ofc_v0", **dict(config.options))
    done = _load(out, config)
    seen = {p.key for p in positions}   # saved comparisons of other positions (more deals) are kept
    results = []
    for p in positions:
        found = done.get(p.key)
        if found is not None and found.default != p.played:
            raise SystemExit(f"{out}: position {p.key} was played {found.default}, the replay plays {p.played}")
        result = found or compare_one(game, p, config)
        results.append(result)
        if out is not None and found is None:
            kept = [asdict(r) for r in results] + [asdict(r) for k, r in done.items() if k not in seen]
            atomic_write_text(out, json.dumps({"config": _config_json(config), "comparisons": kept}))
        if progress is not None:
            progress(result, len(results))
    return results


@dataclass(frozen=True)
class Row:
    """A table row: decisions, misplay rate and mean gap per decision, with 95% CIs over deals."""

    label: str
    decisions: int
    rate: float
    rate_ci: float
    gap: float
    gap_ci: float
    gap_when_differ: float
    clear: int                 # misplays whose gap exceeds twice its standard error


def _row(label: str, chosen: Sequence[Comparison]) -> Row:
    deals = sorted({c.key[0] for c in chosen})
    count = [sum(c.key[0] == d for c in chosen) for d in deals]
    differ = [sum(c.key[0] == d and c.default != c.big for c in chosen) for d in deals]
    gaps = [sum(c.gap for c in chosen if c.key[0] == d) for d in deals]
    rate, rate_ci = ratio_ci(differ, count)
    gap, gap_ci = ratio_ci(gaps, count)
    differing = [c.gap for c in chosen if c.default != c.big]
    clear = sum(c.gap > 2 * c.se for c in chosen if c.default != c.big)
    return Row(label, len(chosen), rate, rate_ci, gap, gap_ci, float(np.mean(differing)) if differing else 0.0, clear)


def summary(results: Sequence[Comparison]) -> tuple[list[Row], list[Row]]:
    """(all decisions, then by street; the misplays by kind)."""
    rows = [_row("all decisions", results)]
    rows += [_row(s, [c for c in results if c.street == s]) for s in STREETS if any(c.street == s for c in results)]
    kinds = sorted({c.kind for c in results if c.default != c.big})
    return rows, [_row(k, [c for c in results if c.kind == k]) for k in kinds]


def by_turn(results: Sequence[Comparison]) -> list[Row]:
    """A row for each count of the seat's turns still to play (this one included), most first:
    the streets' turns one by one (comparisons saved without the count are left out)."""
    counts = sorted({c.turns_left for c in results if c.turns_left is not None}, reverse=True)
    return [_row(f"{n} turn{'s' * (n != 1)} to go", [c for c in results if c.turns_left == n]) for n in counts]


def report(config: StudyConfig, results: Sequence[Comparison]) -> list[str]:
    lines = [f"OFC {dict(config.options)}: {config.deals} deals (seed {config.seed}), expert:{config.default} against "
             f"itself, its {len(results)} decisions replayed by expert:{config.big}",
             f"gap: the value of expert:{config.big}'s placement minus expert:{config.default}'s, points per decision "
             "(its own model, fresh worlds); 95% CIs over deals; clear: gaps above twice their standard error",
             f"{'':36s} {'decisions':>9s} {'differ':>15s} {'clear':>5s} {'gap per decision':>18s} "
             f"{'gap where differ':>17s}"]
    by_street, by_kind = summary(results)
    for r in by_street + by_turn(results):
        lines.append(f"{r.label:36s} {r.decisions:9d} {100 * r.rate:7.1f}% ± {100 * r.rate_ci:4.1f} {r.clear:5d} "
                     f"{r.gap:+9.3f} ± {r.gap_ci:5.3f} {r.gap_when_differ:+17.3f}")
    misplays = sum(r.decisions for r in by_kind)
    lines.append(f"misplays by kind ('larger budget': expert:{config.big})  {'misplays':>9s} {'share':>15s} "
                 f"{'clear':>5s} {'gap per misplay':>18s}")
    for r in by_kind:
        lines.append(f"{r.label:36s} {r.decisions:9d} {100 * r.decisions / misplays:14.1f}% {r.clear:5d} "
                     f"{r.gap:+9.3f} ± {r.gap_ci:5.3f}")
    return lines


def worst(config: StudyConfig, positions: Sequence[Position], results: Sequence[Comparison], count: int) -> list[str]:
    """The ``count`` largest gaps, each as the seat's text board and both placements."""
    game = envs.make_game("ofc_v0", **dict(config.options))
    presenter = presenter_for(game)
    by_key = {p.key: p for p in positions}
    lines = []
    for c in sorted((c for c in results if c.default != c.big), key=lambda c: -c.gap)[:count]:
        view = by_key[c.key].view
        low, high = c.values or (math.nan, math.nan)   # measured wherever the choices differ
        lines += [f"deal {c.key[0]}, hand {c.key[1] + 1}, seat {c.key[2]}, {c.street}: {c.kind}; "
                  f"gap {c.gap:+.2f} ± {c.se:.2f} (standard error)", presenter.render(view),
                  f"  expert:{config.default}: {describe(view.pending, c.default)}  (value {low:+.2f})",
                  f"  expert:{config.big}: {describe(view.pending, c.big)}  (value {high:+.2f})", ""]
    return lines
