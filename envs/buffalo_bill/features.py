"""Buffalo Bill: the optional feature block of the observation (option ``features``).

Appended after the basic observation when ``features=True``. Everything is
computed from what the observer may know (its hand, every public hand, the
discard pile, its own sheet and chips), never the stock order:

* each line has a *par*: the mean value a fresh deal yields for that line
  alone after its best single exchange (sampled once per sheet and deck with a
  fixed seed, the same estimate the baseline agents use); scoring a line now is
  worth ``value - 0.8 par`` (a "gain"; 0.8 = ``PAR_SCALE``, as the Monte Carlo agent);
* every exchange option is evaluated on ``SAMPLES`` draws from the unseen cards
  (deck minus every hand and the discard pile; the whole deck minus the own hand
  when fewer than 5 are unseen). The draws come from a fixed table of random
  numbers applied to the sorted unseen cards, so the block is a pure function of
  the observer's view (deterministic, common random numbers across exchanges).

Slices (``FeatureLayout.slices``, relative to the block; L = sheet lines;
gains map to [0, 1] as ``0.5 + gain / 40``, clipped, values scale by ``MAX_VALUE`` 54):

| slice         | size | content                                                                         |
|---------------|------|---------------------------------------------------------------------------------|
| ``ex_gain``   | 31   | per exchange action: mean over the draws of the best open line's gain afterwards |
| ``ex_best``   | 31   | per exchange action: mean over the draws of the best open line's value / 54      |
| ``ex_improve``| 31   | per exchange action: share of draws whose best gain beats standing pat now       |
| ``open``      | L    | line still empty                                                                |
| ``now``       | L    | value the hand scores on the line now / 54 (0 if written)                       |
| ``now_gain``  | L    | gain of scoring the line now (0 if written)                                     |
| ``potential`` | L    | best mean value of the line after one exchange (max over exchanges) / 54 (0 if written) |
| ``scalars``   | 8    | stand gain (best open ``now_gain``), best ``ex_gain``, rounds left / L, chips / starting chips, chips per round left / 4 (capped at 1), next exchange costs a chip, an exchange is allowed, exchanges this round / (starting chips + 1) |
| ``ex_pref``   | 31   | per exchange: ``exp((net - best) / 4)``, net = ``ex_gain`` in points minus, for a paid exchange, 2 / max(chips per round left, 0.25); best = the largest net or line gain (0 when no exchange is allowed) |
| ``line_pref`` | L    | per open line: ``exp((gain now - best) / 4)`` (0 if written): the Monte Carlo agent's choice is the 1.0 among ex_pref/line_pref |

An observer without a hand (it has scored this round, or the game is over) gets
zeros in the exchange and hand-dependent slices.

Version 2 (``FEATURES_VERSION``): 256 draws per exchange (version 1: 64). Its
argmax (:class:`parlor.agents.buffalo_bill.heuristic.FeatureArgmaxAgent`) then scores
about 168 per solitaire game against the Monte Carlo agent's 163 (48 fresh draws),
paired over 1,000 games; 512 draws add about one more point at twice the cost.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from parlor.envs.buffalo_bill.categories import MAX_VALUE
from parlor.envs.buffalo_bill.encode import EXCHANGE_POSITIONS, HAND_SIZE, NUM_EXCHANGES
from parlor.envs.engine.layout import Layout as Pieces

SAMPLES = 256  # 64 draws left the block's choice ~5 points a game below this (noise, measured vs Monte Carlo(48))
FEATURES_VERSION = 2  # bump when the block changes (part of a trained policy's signature)
GAIN_SCALE = 40.0  # gain g -> 0.5 + g / 40, clipped to [0, 1] (gains beyond +-20 saturate)
NUM_SCALARS = 8
PAR_SCALE = 0.8  # lines kept for later compete with each other: gains count this share of the par (as the Monte Carlo agent)
CHIP_PRICE = 2.0  # points a paid exchange must gain per (chips per round left), as the Monte Carlo agent
PREF_TEMPERATURE = 4.0  # points: preference exp((gain - best) / T)
_U = np.random.default_rng(20261122).random((SAMPLES, 52))
_DRAW_INDEX = {m: np.argsort(_U[:, :m], axis=1)[:, :HAND_SIZE] for m in range(HAND_SIZE, 53)}
# hand position -> column of [hand(5) | draw(5)] for every exchange: kept cards stay,
# the j-th discarded position gets the j-th drawn card (the rules fill freed positions in order)
_GATHER = np.array(
    [[5 + positions.index(i) if i in positions else i for i in range(HAND_SIZE)] for positions in EXCHANGE_POSITIONS],
    dtype=np.intp,
)
_PAR_CACHE: dict[tuple, np.ndarray] = {}


def line_pars(game, hands: int = 400, samples: int = 24, seed: int = 12345) -> np.ndarray:
    """Per line: mean value of a random deal after the single exchange best for that
    line alone (sampled, fixed seed), standing pat when that is better; cached per
    (deck, sheet). The heuristic and Monte Carlo agents use it too."""
    key = (game.deck, game.lines)
    if key not in _PAR_CACHE:
        rng = np.random.default_rng(seed)
        deck = np.array(game.deck)
        total = np.zeros(len(game.lines))
        for _ in range(hands):
            order = rng.permutation(deck)
            hand, pool = order[:HAND_SIZE], order[HAND_SIZE:]
            best = game.evaluator.batch(hand[None, :])[0].astype(float)
            draws = pool[np.argsort(rng.random((samples, len(pool))), axis=1)[:, :HAND_SIZE]]
            cand = np.tile(hand, (NUM_EXCHANGES, samples, 1))
            for a, positions in enumerate(EXCHANGE_POSITIONS):
                cand[a][:, positions] = draws[:, : len(positions)]
            values = game.evaluator.batch(cand.reshape(-1, HAND_SIZE)).reshape(NUM_EXCHANGES, samples, -1)
            total += np.maximum(best, values.mean(axis=1).max(axis=0))
        _PAR_CACHE[key] = total / hands
    return _PAR_CACHE[key]


class FeatureLayout(Pieces):
    """The feature block as named pieces (``slices`` relative to its start, ``size``)."""

    __slots__ = ()

    def __init__(self, num_lines: int):
        super().__init__([
            ("ex_gain", NUM_EXCHANGES), ("ex_best", NUM_EXCHANGES), ("ex_improve", NUM_EXCHANGES),
            ("open", num_lines), ("now", num_lines), ("now_gain", num_lines), ("potential", num_lines),
            ("scalars", NUM_SCALARS), ("ex_pref", NUM_EXCHANGES), ("line_pref", num_lines),
        ])


class FeatureBlock:
    """Computes the feature block of one game (sheet, deck, chips)."""

    def __init__(self, game):
        self.game = game
        self.num_lines = len(game.lines)
        self.layout = FeatureLayout(self.num_lines)
        self.par = PAR_SCALE * line_pars(game)
        self.deck = np.array(sorted(game.deck), dtype=np.int64)
        self.chips = game.config.chips

    def compute(
        self, hand: Sequence[int], seen: Sequence[int], written: Sequence[int | None] | np.ndarray, line_values: Sequence[int],
        chips: int, exchanges: int, round_: int,
    ) -> np.ndarray:
        """The block for an observer holding ``hand`` (empty: scored / over); ``seen``:
        every card in a hand or the discard pile; ``written``: own sheet (None or -1 = empty)."""
        L, s = self.num_lines, self.layout.slices
        out = np.zeros(self.layout.size, dtype=np.float32)
        open_ = np.array([v is None or v < 0 for v in written], dtype=bool)
        rounds_left = max(L - round_, 0)
        sc = s["scalars"].start
        out[sc + 2] = rounds_left / L
        out[sc + 3] = chips / max(self.chips, 1)
        out[sc + 4] = min(chips / max(rounds_left, 1) / 4.0, 1.0)
        out[sc + 5] = exchanges > 0
        out[sc + 7] = exchanges / (self.chips + 1)
        out[s["open"]] = open_
        if len(hand) != HAND_SIZE or not open_.any():
            return out
        out[sc + 6] = exchanges == 0 or chips >= 1
        par = self.par
        now = np.asarray(line_values, dtype=np.float64)
        now_gain = np.where(open_, now - par, -np.inf)
        stand = now_gain.max()
        out[s["now"]] = np.where(open_, now, 0.0) / MAX_VALUE
        out[s["now_gain"]] = np.where(open_, np.clip(0.5 + (now - par) / GAIN_SCALE, 0.0, 1.0), 0.0)
        # sampled draws from the unseen cards
        unseen = np.setdiff1d(self.deck, np.asarray(seen, dtype=np.int64), assume_unique=True)
        if unseen.size < HAND_SIZE:
            unseen = np.setdiff1d(self.deck, np.asarray(hand, dtype=np.int64), assume_unique=True)
        draws = unseen[_DRAW_INDEX[unseen.size]]  # [S, 5]
        rows = np.concatenate((np.broadcast_to(np.asarray(hand, dtype=np.int64), (SAMPLES, HAND_SIZE)), draws), axis=1)
        hands = rows[:, _GATHER]  # [S, 31, 5]
        values = self.game.evaluator.batch(hands.reshape(-1, HAND_SIZE)).reshape(SAMPLES, NUM_EXCHANGES, L)
        open_values = values[:, :, open_]  # [S, 31, open]
        gains = (open_values - par[open_]).max(axis=2)  # [S, 31]
        ex_gain = gains.mean(axis=0)
        out[s["ex_gain"]] = np.clip(0.5 + ex_gain / GAIN_SCALE, 0.0, 1.0)
        out[s["ex_best"]] = open_values.max(axis=2).mean(axis=0) / MAX_VALUE
        out[s["ex_improve"]] = (gains > stand).mean(axis=0)
        potential = values.mean(axis=0).max(axis=0)  # [L]
        out[s["potential"]] = np.where(open_, potential, 0.0) / MAX_VALUE
        out[sc] = np.clip(0.5 + stand / GAIN_SCALE, 0.0, 1.0)
        out[sc + 1] = np.clip(0.5 + ex_gain.max() / GAIN_SCALE, 0.0, 1.0)
        # preferences: the Monte Carlo agent's choice has 1.0, the others decay with their shortfall
        net = ex_gain
        if exchanges > 0:
            net = ex_gain - CHIP_PRICE / max(chips / max(rounds_left, 1), 0.25)
        can = exchanges == 0 or chips >= 1
        best = max(stand, net.max()) if can else stand
        if can:
            out[s["ex_pref"]] = np.exp((net - best) / PREF_TEMPERATURE)
        out[s["line_pref"]] = np.where(open_, np.exp((np.where(open_, now - par, 0.0) - best) / PREF_TEMPERATURE), 0.0)
        return out

    def from_view(self, view) -> np.ndarray:
        p = view.player
        seen = [c for h in view.hands for c in h] + list(view.discards)
        return self.compute(
            view.hands[p], seen, view.written[p], view.line_values[p], view.chips[p], view.exchanges[p], view.round,
        )

    def from_state(self, state, player: int) -> np.ndarray:
        seen = [c for h in state.hands for c in h] + state.discards
        return self.compute(
            state.hands[player], seen, state.written[player].tolist(), state._line_values[player],
            state.chips[player], state.exchanges[player], state.round,
        )
