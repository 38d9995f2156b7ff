"""The OFC expert: a Monte-Carlo planner that maximises expected points against the opponents.

At each regular turn (planned once, at its first card) it lists every way to place the
pending cards (``envs.ofc_outlook.rollouts.plans_of``: rows and owed discards) and scores each by
the points it earns at the showdown, averaged over ``samples`` sampled worlds, the same
worlds for every candidate (:func:`agents.ofc.expert_kernel.candidate_values` does the
scoring, compiled):

- a world is a random order of the cards the seat has not seen (``OFCView.unseen_cards``:
  the deck less its own board, pending cards and discards and every visible board), so it
  deals only cards the seat cannot see, and it reads nothing but the View;
- the opponents' later turns and our own are dealt from the world as the hand's turn
  plan (``envs.ofc.deal.deal_plan``) has them; a hidden Fantasyland opponent gets his
  whole Fantasyland deal from it and plays it with the exact solver;
- the opponents complete their boards with a fast rollout policy (greedy over sampled
  fillings, see the kernel), we complete ours with the same policy up to our last turn,
  which is played exactly: every legal completion against the opponents' finished boards;
- a finished board is scored by the showdown's points against every opponent (rows,
  scoop, fouls, royalties on both sides) plus ``fl_value`` (default ``EXPERT_FL_VALUE``,
  11: the worth of a Fantasyland hand measured for expert play, the fixed point of
  docs/experiments/ofc_expert.md; the heuristic's is 17; ``expert:SAMPLES:fl=V``)
  when it earns Fantasyland and another hand follows; its Fantasyland solver values
  staying at the same ``fl_value``.

So our last street is exact (against the opponents' finished boards), the street before
it is an expectimax over sampled final draws, each played exactly, and a foul is only a
cost weighed against royalties and Fantasyland. Fantasyland hands are played by the exact
solver (``agents.ofc.fantasyland``). The budget is a count of samples, never time: the
play depends only on the View and the agent's seed (``expert:SAMPLES``).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from parlor.agents.ofc.expert_kernel import RESULT, candidate_values
from parlor.agents.ofc.fantasyland import solve
from parlor.agents.ofc.heuristic import OFCHeuristic
from parlor.agents.ofc.shortlist import Prior, network_shortlist
from parlor.envs.engine.hands import CARD_KEY
from parlor.envs.ofc.deal import deal_plan
from parlor.envs.ofc.game import OFCGame
from parlor.envs.ofc.scoring import evaluate_board
from parlor.envs.ofc.view import OFCView
from parlor.envs.ofc_outlook.rollouts import FOUL_COST, ROW_WEIGHT, plans_of

DEFAULT_SAMPLES = 128    # worlds per decision of ``expert`` (the final comparison; see OFCExpert.samples_for)
FILLS = 8                # random fillings behind each rollout placement
MAX_SAMPLES = 1 << 16
MAX_FL_VALUE = 1000.0  # points a Fantasyland hand may be worth to the planner (measured: 11-17)
# What entering (or staying in) Fantasyland is worth to the expert when another hand follows:
# the fixed point measured for expert play against itself (11.1 valued at 17, 11.0 valued at
# 11) and, from the same matches' figures, 10.3-11.5 against each older agent; the
# heuristic's own value (FANTASYLAND_VALUE, 17) overvalued it for the expert.
EXPERT_FL_VALUE = 11.0
SCREEN_KEEP = 24         # candidates kept from a turn's screening for the full budget
SCREEN_SHARE = 4         # the screening's worlds: the budget divided by this
FL_DEALS = 16            # distinct deals of a hidden Fantasyland opponent per decision (each solved exactly)
LATE_FACTOR = 4          # turns with at most SCREEN_KEEP candidates get this many times the budget


@dataclass(frozen=True)
class TurnSetup:
    """What the kernel needs besides the candidates, read off a View: the seat's later
    turns, the regular opponents' boards and later turns, the hidden Fantasyland
    opponents' deal sizes, and where each one's cards lie in a world."""

    schedule: np.ndarray       # [J, 2] our later turns: cards dealt, discards owed
    fl_sizes: tuple[int, ...]  # hidden Fantasyland opponents' deal sizes (their cards come first in a world)
    opponents: tuple[int, ...]  # the regular opponents' seats
    opp_keys: np.ndarray       # [Q, 3] their rows' key sums
    opp_counts: np.ndarray     # [Q, 3] their rows' card counts
    opp_schedule: np.ndarray   # [Q, T, 2] their later turns (padded with zeros)
    opp_turns: np.ndarray      # [Q] how many of the T are real
    own_start: int             # where our later cards start in a world
    opp_start: np.ndarray      # [Q] where theirs do
    needed: int                # cards a world must hold


def row_keys(board) -> tuple[np.ndarray, np.ndarray]:
    """A board's rows as (key sums [3], card counts [3])."""
    keys = np.array([int(CARD_KEY[list(row)].sum()) if row else 0 for row in board], dtype=np.int64)
    return keys, np.array([len(row) for row in board], dtype=np.int64)


def later_turns(view: OFCView) -> list[tuple[int, int, int]]:
    """(seat, cards, discards) of the hand's turns after the seat's current one."""
    plan, _ = deal_plan(view.start_player, tuple(view.fl_dealt), view.variant)
    received = sum(len(r) for r in view.own_rows) + len(view.discards) + len(view.pending)
    dealt = 0
    for index, (seat, k, _d) in enumerate(plan):
        if seat == view.player:
            dealt += k
            if dealt >= received:
                return list(plan[index + 1:])
    raise ValueError(f"seat {view.player} has no turn left in this hand: it cannot be planning one")


def is_opening(view: OFCView) -> bool:
    """Whether the view's regular turn is the hand's first (the seat has placed and thrown nothing)."""
    return not any(view.own_rows) and not view.discards


def turn_setup(view: OFCView) -> TurnSetup:
    later = later_turns(view)
    me = view.player
    schedule = np.array([(k, d) for seat, k, d in later if seat == me], dtype=np.int64).reshape(-1, 2)
    others = [q for q in range(view.num_players) if q != me]
    fl_sizes = tuple(view.fl_dealt[q] for q in others if view.hidden[q])
    opponents = tuple(q for q in others if not view.hidden[q])
    turns = [[(k, d) for seat, k, d in later if seat == q] for q in opponents]
    width = max([len(t) for t in turns] + [1])
    opp_schedule = np.zeros((len(opponents), width, 2), dtype=np.int64)
    for i, t in enumerate(turns):
        if t:
            opp_schedule[i, :len(t)] = t
    keys = [row_keys(view.rows[q]) for q in opponents]
    own_start = sum(fl_sizes)
    starts, pos = [], own_start + int(schedule[:, 0].sum())
    for t in turns:
        starts.append(pos)
        pos += sum(k for k, _ in t)
    return TurnSetup(
        schedule, fl_sizes, opponents,
        np.array([k for k, _ in keys], dtype=np.int64).reshape(-1, 3),
        np.array([c for _, c in keys], dtype=np.int64).reshape(-1, 3),
        opp_schedule, np.array([len(t) for t in turns], dtype=np.int64), own_start,
        np.array(starts, dtype=np.int64), pos)


def draw_worlds(unseen: list[int], samples: int, rng: np.random.Generator, head: int = 0,
                heads: int = FL_DEALS) -> np.ndarray:
    """[samples, len(unseen)]: random orders of the unseen cards. With ``head`` > 0 (the
    hidden Fantasyland deals, which come first) only ``min(heads, samples)`` distinct heads
    are drawn, world ``w`` taking head ``w % heads`` and a random order of the other cards:
    every world is still a random order of the unseen cards, and only that many
    Fantasyland boards have to be solved."""
    pool = np.asarray(unseen, dtype=np.int64)
    worlds = pool[np.argsort(rng.random((samples, len(pool))), axis=1)]
    if head:
        distinct = min(heads, samples)
        for w in range(distinct, samples):
            first = worlds[w % distinct, :head]
            rest = np.setdiff1d(pool, first, assume_unique=True)
            worlds[w] = np.concatenate((first, rest[rng.permutation(len(rest))]))
    return worlds


def fantasyland_boards(worlds: np.ndarray, sizes: tuple[int, ...], fl_stay: str, stay_value: float,
                       heads: int = FL_DEALS) -> np.ndarray:
    """[F, K, RESULT]: each hidden Fantasyland opponent's solved board in each world (his
    cards are the world's first ones, in the order of ``sizes``; the worlds repeat their
    first ``heads`` heads, :func:`draw_worlds`, so only those are solved)."""
    out = np.zeros((len(sizes), len(worlds), RESULT))
    distinct = min(heads, len(worlds))
    for w, world in enumerate(worlds[:distinct]):
        pos = 0
        for f, size in enumerate(sizes):
            board = solve(world[pos:pos + size].tolist(), fl_stay, stay_value)
            pos += size
            res = evaluate_board(board.top, board.middle, board.bottom)
            out[f, w, :5] = (*res.ranks, res.royalty, float(res.fouled))
    for w in range(distinct, len(worlds)):
        out[:, w] = out[:, w % distinct]
    return out


class OFCExpert(OFCHeuristic):
    """Agent protocol (agents/base.py): decides from the View; ``samples`` worlds per
    regular turn, drawn from its own generator (``seed``), so a seeded expert replays
    identically whatever the machine's load. It follows each turn's plan card by card
    and hands Fantasyland hands to the exact solver as the heuristic does (it is the
    heuristic with another planner: :meth:`plan_regular_turn`)."""

    def __init__(self, game: OFCGame | None = None, seed: int | None = None, samples: int = DEFAULT_SAMPLES,
                 fills: int = FILLS, fl_value: float = EXPERT_FL_VALUE):
        if not isinstance(samples, int) or not 1 <= samples <= MAX_SAMPLES:
            raise ValueError(f"expert samples must be an integer in 1..{MAX_SAMPLES}, got {samples!r}")
        if not isinstance(fills, int) or fills < 1:
            raise ValueError(f"expert fills must be a positive integer, got {fills!r}")
        if isinstance(fl_value, bool) or not isinstance(fl_value, (int, float)) or not 0 <= fl_value <= MAX_FL_VALUE:
            raise ValueError(f"expert fl_value must be a number of points in 0..{MAX_FL_VALUE:g}, got {fl_value!r}")
        # entering and staying alike, as the heuristic's FANTASYLAND_VALUE is; read by the heuristic's
        # Fantasyland solver (stay_value) in its __init__, so set first
        self.fl_bonus = self.stay_value = float(fl_value)
        super().__init__(game, seed)
        self.samples, self.fills = samples, fills
        self.fl_stay = self.fantasyland.fl_stay
        # a policy's network that shortlists each turn's candidates (agents.ofc.shortlist);
        # set by the policy's planner (agents.policy_planner) on the turns the network guides
        self.prior: Prior | None = None
        self.shortlist_size = 1

    def samples_for(self, view: OFCView, candidates: int) -> tuple[int, int]:
        """(worlds for the screening of every candidate, worlds for the final comparison):
        a turn with more than ``SCREEN_KEEP`` candidates (the 232 of the opening) scores them
        all on a quarter of the budget first and compares the best ``SCREEN_KEEP`` on the
        full budget; later turns, a few dozen candidates with short futures, get
        ``LATE_FACTOR`` times the budget."""
        if candidates > SCREEN_KEEP:
            return max(1, self.samples // SCREEN_SHARE), self.samples
        return 0, self.samples * LATE_FACTOR

    def values(self, view: OFCView, among: Sequence[int] | None = None
               ) -> tuple[tuple[tuple[int, ...], ...], np.ndarray]:
        """(the candidates of the view's turn, their mean scores over the sampled worlds;
        ``-inf`` for those the screening dropped, and for those not ``among`` the given
        candidate indices when given: a policy's shortlist, budgeted as a turn of that many)."""
        plans = plans_of(view)
        setup = turn_setup(view)
        unseen = view.unseen_cards()
        if len(unseen) < setup.needed:
            raise ValueError(f"the view leaves {len(unseen)} unseen cards, the hand still deals {setup.needed}")
        kept = np.arange(len(plans.dests)) if among is None else np.unique(np.asarray(among, dtype=np.int64))
        screen, final = self.samples_for(view, len(kept))
        values = np.full(len(plans.dests), -np.inf)
        if screen:
            first = self._scores(view, setup, plans.array[kept], unseen, screen)
            kept = kept[np.sort(np.argsort(-first, kind="stable")[:SCREEN_KEEP])]
        values[kept] = self._scores(view, setup, plans.array[kept], unseen, final)
        return plans.dests, values

    def _scores(self, view: OFCView, setup: TurnSetup, dests: np.ndarray, unseen: list[int],
                samples: int) -> np.ndarray:
        """Mean scores of the candidates ``dests`` over ``samples`` fresh worlds."""
        worlds = draw_worlds(unseen, samples, self.rng, head=setup.own_start)
        seed = int(self.rng.integers(2**31 - 1))
        next_hand = view.hand_index + 1 < view.num_hands
        fl_value = self.fl_bonus if next_hand else 0.0
        fl_boards = fantasyland_boards(worlds, setup.fl_sizes, self.fl_stay, fl_value)
        return candidate_values(
            dests, view.pending, *row_keys(view.own_rows), setup.schedule, worlds, fl_boards,
            setup.opp_keys, setup.opp_counts, setup.opp_schedule, setup.opp_turns, setup.opp_start,
            setup.own_start, view.discards_owed, self.fills, fl_value, FOUL_COST, ROW_WEIGHT, fl_value, seed)

    def turns_left(self, view: OFCView) -> int | None:
        """The seat's regular turns from the current one to the hand's end (None outside a
        regular turn): the same for every decision of a turn (a policy's late planner reads it)."""
        if not view.pending or view.fantasyland[view.player]:
            return None
        return 1 + sum(1 for seat, _cards, _discards in later_turns(view) if seat == view.player)

    def plan_regular_turn(self, view: OFCView) -> list[int]:
        """Destinations of the view's pending cards: the best-scoring candidate (the first of
        equals), among the ``prior``'s shortlist of ``shortlist_size`` when a policy set one."""
        plans = plans_of(view)
        if len(plans.dests) == 1:
            return list(plans.dests[0])
        among = None
        if self.prior is not None:
            among = network_shortlist(view, plans.dests, self.prior, self.shortlist_size)
            if len(among) == 1:
                return list(plans.dests[among[0]])
        dests, values = self.values(view, among)
        return list(dests[int(np.argmax(values))])


class OpeningBudgetExpert(OFCExpert):
    """The expert at its default budget on the hand's opening turn and at ``expert:8``'s on
    the later ones: what a distilled policy with ``expert:8`` as its late planner would play
    with a perfect copy of the expert's opening. The agent of that measurement
    (``parlor.agents.ofc.expert:OpeningBudgetExpert``, docs/experiments/ofc_distilled.md)."""

    opening_samples, later_samples = DEFAULT_SAMPLES, 8

    def __init__(self, game: OFCGame | None = None, seed: int | None = None):
        super().__init__(game, seed, samples=self.later_samples)

    def plan_regular_turn(self, view: OFCView) -> list[int]:
        self.samples = self.opening_samples if is_opening(view) else self.later_samples
        return super().plan_regular_turn(view)
