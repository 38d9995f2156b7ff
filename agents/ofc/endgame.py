"""Endgame foul probabilities of a Pineapple OFC board, exact or nearly so.

A regular Pineapple turn deals three cards, places two and discards one. Once a
board has at most four free slots, how likely it is to foul under the most
careful play that follows can be computed instead of guessed:

- 0 free slots: the board fouls or not;
- 2 free slots (:func:`foul_after_two`): the last turn deals 3 of the unseen
  cards and the seat keeps the 2 that avoid a foul if any pair does. With
  ``F[i, j]`` "the board fouls with card i in the first slot and j in the second",
  a deal {i, j, k} fouls when every ordered pair of it does, i.e. when i, j, k
  form a triangle of the graph ``G = F & F.T``: the probability is the triangle
  count ``trace(G^3) / 6`` over ``C(n, 3)``. Exact. Counted over the 13 card
  ranks where the suits cannot matter (:mod:`agents.ofc.rank_classes`), else over
  the unseen cards (:mod:`agents.ofc.two_slots`): the same integer either way.
- 4 free slots (:func:`foul_after_four`): the next turn's three cards are drawn
  ``samples`` times from the unseen cards (the same draws for every board of
  the turn: common random numbers), the seat places the two that leave the
  smallest exact :func:`foul_after_two`, the average is the estimate. Every
  draw's placements are counted in one batch (:mod:`agents.ofc.draw_layout`),
  kept per board for the turn; the searches below read them.

- 6 free slots (:func:`foul_after_six`): the same one turn further back: over
  ``MIDGAME_SAMPLES`` draws of the next turn's cards, the best placement's
  :func:`foul_after_four` over ``MIDGAME_NEXT_SAMPLES`` draws of the turn after.
  Branch and bound keeps it affordable: a placement's estimate stops once it
  cannot be the draw's lowest, and a board's once it is sure to exceed a ``cap``
  (it then returns a lower bound above the cap), so only whether a board is within
  the cap is paid for in full.

The unseen cards are the seat's own (``OFCView.unseen_cards``): cards another
seat holds face down count as possible draws, as they must for a seat that
cannot see them.

:func:`action_risks` gives, per action of the next pending card, the lowest of
these probabilities over the turn's plans that start with it (None while the
turn leaves more than four free slots): what the ``endgame_foul`` guard
(:mod:`agents.ofc.guards`) and the ``foul:endgame`` estimator
(:mod:`agents.ofc.risk`) read. :func:`midgame_action_risks` does the same for a
turn that leaves six free slots, up to a cap: what the ``midgame_foul`` guard
reads. The strongest-first rollouts of :mod:`envs.ofc_outlook.rollouts` route the future
cards by a fixed rule and overstate the risk a careful seat runs (see the
README); this module lets the seat choose. Not a rule of the game: an advisor
for training and play (``agents.ofc.advisor``).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from parlor.agents.ofc.draw_layout import draw_layout
from parlor.agents.ofc.rank_classes import cached_counts, class_risks, rank_table
from parlor.agents.ofc.two_slots import RankCache, layout_risks, row_table
from parlor.envs.ofc.scoring import evaluate_board
from parlor.envs.ofc.view import OFCView
from parlor.envs.ofc_outlook.rollouts import BOTTOM, MIDDLE, ROW_SIZES, TOP, place, room_of, turn_candidates

ENDGAME_SAMPLES = 32   # draws of the next turn's cards behind a 4-free-slot estimate
MAX_FREE = 4           # boards with more free slots are not judged by action_risks
MIDGAME_SAMPLES = 16       # draws of the next turn's cards behind a 6-free-slot estimate,
MIDGAME_NEXT_SAMPLES = 4   # and of the turn after's behind each of its 4-free-slot ones
MIDGAME_FREE = 6

Rows = Sequence[Sequence[int]]
DRAWN_CARDS = "drawn cards"   # key of _drawn_cards's lists in the first draw's RankCache
SIX_DRAWN = "six drawn"       # likewise of foul_after_six's draws, in the first draw's first cache
FOUR = "four"   # with a board, the key of its placements' risks per draw in the first draw's RankCache


def free_slots(rows: Rows) -> list[int]:
    """The row of every free slot, top first."""
    return [r for r in (TOP, MIDDLE, BOTTOM) for _ in range(ROW_SIZES[r] - len(rows[r]))]


def foul_after_two(rows: Rows, unseen: np.ndarray, cache: RankCache | None = None) -> float:
    """Exact foul probability of a board with two free slots when the last turn deals
    three of ``unseen`` (ascending int array) and the seat places the best two
    (:mod:`agents.ofc.two_slots`). ``cache`` may carry row ranks between boards judged
    against the same ``unseen``."""
    room = room_of(rows)
    if sum(room) != 2:
        raise ValueError(f"foul_after_two needs a board with 2 free slots, got {sum(room)}")
    n = len(unseen)
    if n < 3:
        raise ValueError(f"foul_after_two needs at least 3 unseen cards, got {n}")
    cache = {} if cache is None else cache
    counts = cached_counts(unseen, cache)
    tables = [rank_table(r, tuple(sorted(rows[r]))) for r in range(3)]
    if counts is not None and all(t is not None for t in tables):
        return class_risks(room, [tables], [counts], n)[0]
    tables = [row_table(tuple(rows[r]), r, unseen, cache) for r in range(3)]
    return layout_risks(room, [tables], n)[0]


def _drawn_cards(unseen: np.ndarray, draws: np.ndarray, caches: list[RankCache],
                 key: str = DRAWN_CARDS) -> tuple[list[list[int]], list[np.ndarray]]:
    """The cards of each draw and the unseen cards each leaves, kept under ``key`` in the
    first draw's cache (every board judged against these caches has the same ``unseen``
    and ``draws``): made once, not per board."""
    memo = caches[0] if len(caches) else {}
    drawn = memo.get(key)
    if drawn is None:
        drawn = memo[key] = ([unseen[d].tolist() for d in draws], _left(unseen, draws))
    return drawn


def _left(unseen: np.ndarray, draws: np.ndarray) -> list[np.ndarray]:
    """The unseen cards each draw leaves (``np.delete(unseen, draw)`` of every draw, by one mask)."""
    keep = np.ones((len(draws), len(unseen)), dtype=bool)
    keep[np.arange(len(draws))[:, None], draws] = False
    return [unseen[k] for k in keep]


def next_turn_draws(n: int, key: int, samples: int = ENDGAME_SAMPLES) -> np.ndarray:
    """``samples`` draws of 3 distinct indices into ``n`` unseen cards, fixed by ``key``."""
    rng = np.random.default_rng(key)
    return np.argsort(rng.random((samples, n)), axis=1)[:, :3]


def foul_after_four(rows: Rows, unseen: np.ndarray, draws: np.ndarray,
                    caches: list[RankCache] | None = None, bound: float = 1.0, enough: float = 0.0) -> float:
    """Foul probability of a board with four free slots: over ``draws`` ([S, 3] indices
    into ``unseen``) of the next turn's cards, the mean of the best placement's
    :func:`foul_after_two`. ``caches`` (one per draw) may be shared by boards judged
    against the same ``unseen`` and ``draws``. Once the mean is sure to exceed
    ``bound`` the estimate stops and returns a lower bound above it. With ``enough``
    each draw takes the first placement at most that risky: an upper bound."""
    room = _room_with(rows, 4, "foul_after_four")
    caches = [{} for _ in draws] if caches is None else caches
    layout = draw_layout(tuple(room))
    # every draw's placements in one batch (far cheaper than a batch per draw, even when the
    # search below stops before the last draw), kept for the boards judged again (the
    # midgame's quick and full passes, a guard's second look without its cap); the search
    # reads them in its order
    board = tuple(tuple(sorted(r)) for r in rows)
    memo = caches[0] if len(caches) else {}
    every = memo.get((FOUR, board))
    if every is None:
        every = memo[(FOUR, board)] = layout.risks(board, *_drawn_cards(unseen, draws, caches), caches)
    return _mean_of_best(every, bound, enough)


def foul_after_six(rows: Rows, unseen: np.ndarray, draws: np.ndarray, next_draws: np.ndarray,
                   caches: list[list[RankCache]] | None = None, cap: float = 1.0) -> float:
    """Foul probability of a board with six free slots: over ``draws`` ([S, 3] indices
    into ``unseen``) of the next turn's cards, the mean of the best placement's
    :func:`foul_after_four` over ``next_draws`` ([S', 3] indices into the cards each
    draw leaves). ``caches[s][s']`` may be shared by boards judged against the same
    cards and draws. Once the mean is sure to exceed ``cap`` the estimate stops and
    returns a lower bound above it."""
    room = _room_with(rows, 6, "foul_after_six")
    caches = [[{} for _ in next_draws] for _ in draws] if caches is None else caches
    plans = draw_layout(tuple(room)).plans
    # the draws' cards and the cards each leaves, kept in the first cache (beside the first
    # draw's own next draws' under DRAWN_CARDS) for the boards judged against the same draws
    drawn = _drawn_cards(unseen, draws, [caches[0][0] if len(caches) and len(caches[0]) else {}], SIX_DRAWN)

    def placements(four: Callable[[Rows, np.ndarray, list[RankCache], float], float]):
        def risk_of(d: int, draw: np.ndarray) -> Callable[[int, float], float]:
            cards, rest = drawn[0][d], drawn[1][d]
            return lambda i, best: four(place(rows, cards, plans[i]), rest, caches[d], best)
        return risk_of

    if cap < 1.0:  # first try to prove the board within the cap by any good-enough plans
        quick = _best_placement_mean(len(plans), draws, cap, placements(
            lambda board, rest, cache, best: foul_after_four(board, rest, next_draws, cache, best, cap)), cap)
        if quick <= cap:
            return quick
    return _best_placement_mean(len(plans), draws, cap, placements(
        lambda board, rest, cache, best: foul_after_four(board, rest, next_draws, cache, bound=best)))


def _room_with(rows: Rows, free: int, judge: str) -> tuple[int, int, int]:
    """The rows' free slots (:func:`room_of`), checked to total ``free``."""
    room = room_of(rows)
    if sum(room) != free:
        raise ValueError(f"{judge} needs a board with {free} free slots, got {sum(room)}")
    return room


def _best_placement_mean(num_plans: int, draws: np.ndarray, bound: float,
                         risk_of: Callable[[int, np.ndarray], Callable[[int, float], float]],
                         enough: float = 0.0) -> float:
    """Mean over ``draws`` of the lowest risk over the draw's placements (``risk_of(d,
    draw)(plan, best so far)``; a risk may stop early above the best so far: branch and
    bound); stops once the mean is sure to exceed ``bound``. With ``enough`` a draw takes
    the first placement judged at most that, so the mean is an upper bound (a strategy no
    better than the best) rather than the lowest."""
    limit = bound * len(draws)
    total = 0.0
    order = list(range(num_plans))  # placements of a draw's 3 cards, in the order they are tried
    for d, draw in enumerate(draws):
        risk = risk_of(d, draw)
        best, best_at = 1.0, 0
        for at, i in enumerate(order):
            p = risk(i, best)
            if p < best:
                best, best_at = p, at
            if best <= enough:
                break
        # the last draw's best plan goes first for the next: a safe shape tends to stay safe,
        # and a clean plan found first ends the search
        order.insert(0, order.pop(best_at))
        total += best
        if total > limit:
            break
    return total / len(draws)


def _mean_of_best(risks: list[list[float]], bound: float, enough: float) -> float:
    """:func:`_best_placement_mean` of known risks (``risks[draw][plan]``), the same number
    by the same steps without a call per placement: with ``enough`` 0 each draw's best is
    its lowest, whatever order its placements are tried in."""
    limit = bound * len(risks)
    total = 0.0
    if enough <= 0.0:
        for row in risks:
            total += min(row)
            if total > limit:
                break
        return total / len(risks)
    order = list(range(len(risks[0])))
    for row in risks:
        best, best_at = 1.0, 0
        for at, i in enumerate(order):
            p = row[i]
            if p < best:
                best, best_at = p, at
            if best <= enough:
                break
        order.insert(0, order.pop(best_at))
        total += best
        if total > limit:
            break
    return total / len(risks)


class EndgameJudge:
    """Foul probabilities of the boards a turn can leave, memoised for the turn (its
    cards share the unseen set and the draws; a new unseen set starts afresh)."""

    def __init__(self, samples: int = ENDGAME_SAMPLES):
        self.samples = samples
        self._turn: tuple | None = None          # (key, unseen) of the turn being judged
        self._memo: dict[tuple, float] = {}      # board -> foul probability, this turn
        self._unseen = np.empty(0, dtype=np.int64)
        self._ranks: RankCache = {}              # row ranks against the unseen cards
        self._draws = np.empty((0, 3), dtype=np.int64)
        self._draw_ranks: list[RankCache] = []   # row ranks against the unseen cards left by each draw
        self._midgame: tuple[np.ndarray, np.ndarray, list[list[RankCache]]] | None = None       # 6-free-slot draws and their rank caches, made on demand
        self._capped: dict[tuple, tuple[float, float]] = {}  # 6-free-slot board -> (estimate, cap it had)

    def risk(self, rows: Rows, unseen: Sequence[int], key: int, cap: float = 1.0) -> float | None:
        """The board's foul probability (None with more than six free slots). With six
        free slots and a ``cap`` below 1 it only tells the side of the cap: within it an
        upper bound, above it a lower bound (:func:`foul_after_six`)."""
        turn = (key, tuple(unseen))
        if turn != self._turn:
            self._turn, self._memo, self._ranks, self._midgame, self._capped = turn, {}, {}, None, {}
            self._unseen = np.asarray(unseen, dtype=np.int64)
            self._draws = next_turn_draws(len(self._unseen), key, self.samples)
            self._draw_ranks = [{} for _ in self._draws]
        board = tuple(tuple(sorted(r)) for r in rows)
        free = len(free_slots(rows))
        if free == MIDGAME_FREE:
            return self._midgame_risk(board, rows, key, cap)
        if board not in self._memo:
            if free == 0:
                self._memo[board] = float(evaluate_board(*rows).fouled)
            elif free == 2:
                self._memo[board] = foul_after_two(rows, self._unseen, self._ranks)
            elif free == 4:
                self._memo[board] = foul_after_four(rows, self._unseen, self._draws, self._draw_ranks)
            else:
                return None
        return self._memo[board]

    def _midgame_risk(self, board: tuple, rows: Rows, key: int, cap: float) -> float:
        known = self._capped.get(board)
        if known is not None:  # an earlier estimate serves if exact or on a known side of this cap
            p, had = known
            if had >= 1.0 or (cap < 1.0 and ((p <= had and p <= cap) or (p > had and p > cap))):
                return p
        if self._midgame is None:
            draws = next_turn_draws(len(self._unseen), key, MIDGAME_SAMPLES)
            next_draws = next_turn_draws(len(self._unseen) - 3, key + 1, MIDGAME_NEXT_SAMPLES)
            self._midgame = (draws, next_draws, [[{} for _ in next_draws] for _ in draws])
        p = foul_after_six(rows, self._unseen, *self._midgame, cap=cap)
        self._capped[board] = (p, cap)
        return p


def free_after_turn(view: OFCView) -> int | None:
    """Free slots the seat's current regular turn leaves (None outside one: no pending
    card, or a Fantasyland turn)."""
    if not view.pending or view.fantasyland[view.player]:
        return None
    return sum(room_of(view.own_rows)) - (len(view.pending) - view.discards_owed)


def action_risks(view: OFCView, key: int, judge: EndgameJudge | None = None) -> dict[int, float] | None:
    """Per action of the next pending card, the lowest foul probability over the turn's
    plans starting with it; None unless the turn leaves at most ``MAX_FREE`` free slots
    (or in a Fantasyland turn). ``key`` fixes the draws (constant over one turn, e.g.
    :func:`envs.ofc_outlook.features.turn_key`)."""
    left = free_after_turn(view)
    if left is None or left > MAX_FREE:
        return None
    return _per_first_action(view, key, judge or EndgameJudge(), 1.0)



def midgame_action_risks(view: OFCView, key: int, cap: float,
                         judge: EndgameJudge | None = None) -> dict[int, float] | None:
    """Per action of the next pending card, whether the turn's plans starting with it
    can keep the foul probability (:func:`foul_after_six`) within ``cap``: if one can,
    an upper bound of its probability at most ``cap``, else a lower bound above it (the
    lowest probability itself when ``cap`` is 1). None unless the turn leaves six free
    slots (or in a Fantasyland turn)."""
    if free_after_turn(view) != MIDGAME_FREE:
        return None
    return _per_first_action(view, key, judge or EndgameJudge(), cap)


def _per_first_action(view: OFCView, key: int, judge: EndgameJudge, cap: float) -> dict[int, float]:
    """The lowest of the judge's risks over the turn's plans, per first action (in the order
    the plans list them); below ``cap`` 1 an action's search ends at its first plan within
    the cap."""
    firsts = dict.fromkeys(dest[0] for dest in turn_candidates(view))
    within = cap if cap < 1.0 else -1.0   # risks are >= 0: with cap 1 every plan is judged
    return {a: first_action_risk(view, key, judge, a, cap, within) for a in firsts}


def first_action_risk(view: OFCView, key: int, judge: EndgameJudge, action: int, cap: float,
                      within: float) -> float:
    """The lowest of the judge's risks (with ``cap``) over the turn's plans starting with
    ``action``, in their order, except that the search ends at its first plan of risk
    ``within`` or less (then some such value): the guards judge one action this way when
    its side of a threshold is all they need (:func:`agents.ofc.guards.first_kept`)."""
    board, unseen = view.own_rows, view.unseen_cards()
    lowest = 1.0
    for dest in turn_candidates(view):
        if dest[0] != action:
            continue
        risk = judge.risk(place(board, view.pending, dest), unseen, key, cap)
        if risk is None:  # the judge rates boards of six free slots or fewer
            raise ValueError(f"first_action_risk: a plan of action {action} leaves more than six free slots")
        lowest = min(lowest, risk)
        if lowest <= within:
            break
    return lowest
