"""A rule-based Washizu draw poker player (reads only the View).

How it plays:
- Unseen cards: the full deck minus its own hand and discards, every Washizu
  card visible in a hand, and the Washizu cards that left view. So outs that
  sit transparently in an opponent's hand (or were thrown away) are discounted.
- Draw: standard draw-poker candidates (stand pat; keep pairs/trips/two pair;
  keep four to a flush or a straight; keep jokers plus high cards) scored by
  drawing the replacements from the unseen cards (the same samples for every
  candidate) and averaging ``strength ** opponents``, where ``strength`` is the
  hand's percentile among random five-card hands of this deck. Made hands
  stand pat, pairs draw three, four-flushes draw one unless their outs are
  gone, and so on.
- Betting: it estimates its chance to win the showdown by dealing the
  opponents still in their visible Washizu cards plus random unseen cards, and
  raises with a strong hand (the maximum when the chance is very high), calls
  when the pot odds pay (chance x (pot + call) >= call), drops otherwise.

Its results against random agents (seat rotation, duplicate deals, 95%
confidence intervals) come from ``parlor eval``, e.g. ``parlor eval
washizu_poker_v0 --agents heuristic,random --games 2000``.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np

from parlor.agents.base import SeededAgent
from parlor.envs.engine.cards import JOKER_BASE, rank_of, suit_of
from parlor.envs.washizu_poker.deck import full_deck
from parlor.envs.washizu_poker.game import WashizuGame

DRAW_SAMPLES = 128  # replacement draws per discard choice (shared by all choices)
WORLD_SAMPLES = 120  # sampled opponent hands for the win chance
REFERENCE_HANDS = 20_000
DROP, CALL, RAISE_BASE = 32, 33, 33
_REFERENCE: dict[tuple[Callable[..., np.ndarray], tuple[int, ...]], np.ndarray] = {}


def reference_ranks(deck: tuple[int, ...], rank5_batch: Callable[..., np.ndarray]) -> np.ndarray:
    """Sorted ranks of the best five of seven random cards of ``deck`` (by the game's
    evaluator): the strength scale, roughly the final hands of opponents who draw sensibly."""
    ref = _REFERENCE.get((rank5_batch, deck))
    if ref is None:
        rng = np.random.default_rng(12345)
        arr = np.asarray(deck)
        seven = arr[np.argsort(rng.random((REFERENCE_HANDS, arr.size)), axis=1)[:, :7]]
        best = np.zeros(REFERENCE_HANDS, dtype=np.int64)
        for five in itertools.combinations(range(7), 5):
            best = np.maximum(best, rank5_batch(seven[:, five]))
        ref = np.sort(best)
        _REFERENCE[rank5_batch, deck] = ref
    return ref


def unseen_cards(view, deck: tuple[int, ...]) -> np.ndarray:
    known = set(view.hand) | set(view.my_discards) | set(view.left_view)
    for cards in view.visible:
        known.update(cards)
    return np.array([c for c in deck if c not in known])


def candidate_discards(hand: tuple[int, ...]) -> list[int]:
    """The keeps a draw-poker player considers, as discard actions: stand pat; keep the
    pairs/trips (+ jokers); keep four to a flush or to a straight (jokers fill in);
    keep the jokers and the one or two highest cards; keep only the jokers."""
    cards = list(hand)
    jokers = {i for i, c in enumerate(cards) if c >= JOKER_BASE}
    ranks = [rank_of(c) for c in cards]
    suits = [suit_of(c) for c in cards]
    keeps: list[set[int]] = [set(range(5)), set(jokers)]
    grouped = {i for i in range(5) if i not in jokers and ranks.count(ranks[i]) >= 2}
    if grouped:
        keeps.append(grouped | jokers)
    for suit in range(4):
        same = {i for i in range(5) if suits[i] == suit}
        if len(same) + len(jokers) >= 4:
            keeps.append(same | jokers)
    for top in range(3, 13):  # straight windows top-4..top; top 3 is the wheel A-2-3-4-5
        window = {r if r >= 0 else 12 for r in range(top - 4, top + 1)}
        pick: dict[int, int] = {}
        for i in range(5):
            if i not in jokers and ranks[i] in window:
                pick.setdefault(ranks[i], i)
        if len(pick) + len(jokers) >= 4:
            keeps.append(set(pick.values()) | jokers)
    by_rank = sorted((i for i in range(5) if i not in jokers), key=lambda i: -ranks[i])
    keeps += [jokers | set(by_rank[:1]), jokers | set(by_rank[:2])]
    actions = {sum(1 << i for i in range(5) if i not in kept) for kept in keeps if len(kept) <= 5}
    return sorted(actions)


class WashizuHeuristic(SeededAgent):
    def __init__(self, game: WashizuGame, seed: int | None = None):
        self.game = game
        self.deck = full_deck(game.config)
        self.reference = reference_ranks(self.deck, game.rank5_batch)
        super().__init__(seed)

    def strength(self, ranks: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.reference, ranks, side="right") / self.reference.size

    def act(self, observation, action_mask, view, sample_world=None) -> int:
        if view.phase == "draw":
            return self.choose_draw(view)
        action = self.choose_bet(view, action_mask)
        if not action_mask[action]:  # never happens by construction; a guard for odd masks
            action = int(np.flatnonzero(action_mask)[0])
        return action

    # ---------------------------------------------------------------- draw
    def draw_scores(self, view) -> dict[int, float]:
        """Score of each candidate discard action (mean of strength ** opponents)."""
        hand = np.array(view.hand)
        actions = candidate_discards(view.hand)
        pool = unseen_cards(view, self.deck)
        k = DRAW_SAMPLES
        draws = pool[np.argsort(self.rng.random((k, pool.size)), axis=1)[:, :5]]
        rows = np.empty((len(actions), k, 5), dtype=np.int64)
        for j, a in enumerate(actions):
            kept = [i for i in range(5) if not a >> i & 1]
            rows[j, :, : len(kept)] = hand[kept]
            rows[j, :, len(kept):] = draws[:, : 5 - len(kept)]
        opponents = max(1, sum(view.in_hand) - 1)
        s = self.strength(self.game.rank5_batch(rows.reshape(-1, 5))).reshape(len(actions), k)
        return dict(zip(actions, (s ** opponents).mean(axis=1).tolist()))

    def choose_draw(self, view) -> int:
        scores = self.draw_scores(view)
        return max(scores, key=scores.__getitem__)

    # ---------------------------------------------------------------- betting
    def win_chance(self, view) -> float:
        me = view.player
        opponents = [s for s in range(view.num_players) if s != me and view.in_hand[s]]
        pool = unseen_cards(view, self.deck)
        hidden = [5 - len(view.visible[s]) for s in opponents]
        k = WORLD_SAMPLES
        deal = pool[np.argsort(self.rng.random((k, pool.size)), axis=1)[:, : sum(hidden)]]
        rows = np.empty((k, len(opponents), 5), dtype=np.int64)
        at = 0
        for j, s in enumerate(opponents):
            shown = list(view.visible[s])
            rows[:, j, : len(shown)] = shown
            rows[:, j, len(shown):] = deal[:, at: at + hidden[j]]
            at += hidden[j]
        theirs = self.game.rank5_batch(rows.reshape(-1, 5)).reshape(k, len(opponents)).max(axis=1)
        mine = self.game.rank5(view.hand)
        return float(np.mean(np.where(mine > theirs, 1.0, np.where(mine == theirs, 0.5, 0.0))))

    def choose_bet(self, view, action_mask) -> int:
        chance = self.win_chance(view)
        opponents = sum(view.in_hand) - 1
        raises = int(np.count_nonzero(action_mask[RAISE_BASE + 1:]))
        to_call = view.to_call
        if raises and chance >= max(0.6, 1.6 / (opponents + 1)):
            size = raises if chance >= 0.8 else 1
            return RAISE_BASE + size
        if chance * (view.pot + to_call) >= to_call:
            return CALL
        return DROP
