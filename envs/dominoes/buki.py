"""Buki (Bukidomino), the betting game of docs/rules.md §4a: 4 players against a banker.

Owns the config, the betting phases (bet amount or "later", the banker's
accept/refuse of a ``raise_before_4th`` raise) and the settlement (winner: bet
back plus exactly 2.5x from the banker; losers' bets to the banker; drawn
deals carry the bets). Chips are exact (ints, Fractions for halves) in an engine ``Ledger``;
bets on the table sit in its pot. Action ids: 0..71 tile plays, 72 pass,
``73 + (amount - min_bet)`` bet/raise to ``amount``, then LATER, ACCEPT, REFUSE.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Any

import numpy as np

from parlor.envs.dominoes import buki_features
from parlor.envs.dominoes import encode as _encode
from parlor.envs.dominoes.encode import CORE_SIZE
from parlor.envs.dominoes.rules import FIRST_GAME_ACTION
from parlor.envs.dominoes.state import ACCEPT, BET, TILE, DominoGame, DominoState, DominoView
from parlor.envs.engine.chips import Ledger, exact
from parlor.envs.engine.config import build, check_bool, check_choice, check_int
from parlor.envs.engine.game import ConfigError

NUM_PLAYERS = 4
PAYOUT = Fraction(5, 2)
TAIL = 48
BETS, CHIPS = CORE_SIZE + 4, CORE_SIZE + 8    # absolute offsets in the observation
TURNS, FLAGS = CORE_SIZE + 12, CORE_SIZE + 40
ONE_HOT5 = np.eye(5, dtype=np.float32)


@dataclass(frozen=True, slots=True, kw_only=True)
class BukiConfig:
    """Options of docs/rules.md §4a.7 with their defaults."""

    banker: int = 0                 # banker seat, fixed for the episode
    chips: int = 100                # starting chips of every player
    min_bet: int = 2
    max_bet: int | None = None      # None: 3 x min_bet
    hand_size: int = 6              # 6 or 7 tiles each; the rest is the unused Stamm
    raise_before_4th: bool = False  # raises before the 4th turn, banker accepts or refuses
    num_deals: int = 8
    features: bool = False          # append the bettor's feature block (buki_features.py)

    def __post_init__(self) -> None:
        check_int("banker", self.banker, 0, NUM_PLAYERS - 1)
        check_int("chips", self.chips, 1)
        check_int("min_bet", self.min_bet, 1)
        if self.max_bet is None:
            object.__setattr__(self, "max_bet", 3 * self.min_bet)
        check_int("max_bet", self.max_bet, self.min_bet)
        check_choice("hand_size", self.hand_size, (6, 7))
        check_bool("raise_before_4th", self.raise_before_4th)
        check_int("num_deals", self.num_deals, 1)
        check_bool("features", self.features)
        # Decision: chips must cover the worst run of num_deals deals, so nobody goes broke
        banker_worst = PAYOUT * self.max_bet - (NUM_PLAYERS - 2) * self.min_bet
        need = self.num_deals * max(banker_worst, Fraction(self.max_bet))
        if self.chips < need:
            raise ConfigError(f"chips={self.chips} cannot cover {self.num_deals} deals at bets "
                              f"{self.min_bet}..{self.max_bet}; allowed values: chips >= {float(need):g}")


@dataclass(frozen=True, slots=True, kw_only=True)
class BukiView(DominoView):
    banker: int
    chips: tuple[Fraction, ...]        # balances, bets on the table excluded
    bets: tuple[int, ...]              # bet on the table per seat (0: none yet)
    carried: tuple[bool, ...]          # bet carried over from a drawn deal
    must_bet_first: tuple[bool, ...]   # previous winner: bet due before his 1st turn
    min_bet: int
    max_bet: int
    bet_due: bool                      # the player to act must bet now (cannot defer)
    pending_raise: int                 # raise awaiting the banker's answer (0: none)
    raiser: int | None


class BukiState(DominoState):
    def __init__(self, game: BukiGame, rng: np.random.Generator, decks: Sequence[Sequence[int]] | None):
        super().__init__(game, rng, decks)
        cfg = game.config
        self.cfg = cfg
        self.banker = cfg.banker
        self.ledger = Ledger.equal(NUM_PLAYERS, cfg.chips)
        self.bets = [0] * NUM_PLAYERS        # whole chips on the table (in the ledger's pot)
        self.carried = [False] * NUM_PLAYERS
        self.must_bet_first = [False] * NUM_PLAYERS
        self.pending_raise = 0
        self.raiser: int | None = None
        self.options = (0, 0, False, False)  # bet phase: lowest, highest amount, may defer, needs accept
        self.mark = [(cfg.chips, 1)] * NUM_PLAYERS   # wealth at the last reward, as (num, den)
        self._start(leader=None)
        self._sync_tail()

    @property
    def chips(self) -> list[Fraction]:
        return self.ledger.balances

    @property
    def turns(self) -> list[int]:
        return self.deal.turns

    @property
    def bet_due(self) -> bool:
        return self.phase == BET and not self.options[2]

    def _start(self, leader: int | None) -> None:
        self._new_deal([True] * NUM_PLAYERS, self.cfg.hand_size, leader)
        self._begin_turn()

    # ------------------------------------------------------------ betting
    def _bet_options(self, p: int) -> tuple[int, int, bool, bool] | None:
        """Bet choices at the start of ``p``'s turn: (lowest, highest, may defer, needs accept)."""
        cfg, bet, k = self.cfg, self.bets[p], self.deal.turns[p]
        if p == self.banker:
            return None
        if bet == 0:
            deadline = 1 if self.must_bet_first[p] else 3
            return (cfg.min_bet, cfg.max_bet, k < deadline, False)
        if bet >= cfg.max_bet:
            return None
        if self.carried[p] and k <= 3:
            return (bet + 1, cfg.max_bet, True, False)
        if cfg.raise_before_4th and k <= 4:
            return (bet + 1, cfg.max_bet, True, True)
        return None

    def _begin_turn(self) -> None:
        # The tail's flow entries are written here and in _apply, where they change (a full
        # fill after an event rewrites them all): turn counts only grow, one per turn begun,
        # and the bet flags are set only in the BET phase (zero whenever the phase is TILE).
        deal = self.deal
        p = deal.current
        k = deal.turns[p]
        if k <= 4:   # move the one-hot from k - 1 to k (two scalar writes); past 4 it stays at 4+
            cells = self.cells
            i = TURNS + 5 * p + k
            cells[i - 1] = 0.0
            cells[i] = 1.0
        options = None if p == self.banker else self._bet_options(p)   # (the banker never bets)
        if options is None:
            self.phase = TILE
        else:
            self.phase = BET
            self.options = options
            self.cells[FLAGS] = 1.0
            self.cells[FLAGS + 1] = 0.0 if options[2] else 1.0

    def _end_bet(self) -> None:
        """BET -> TILE: clear the bet flags."""
        self.phase = TILE
        self.cells[FLAGS] = self.cells[FLAGS + 1] = 0.0

    def _fill_mask(self, mask: np.ndarray) -> None:
        g = self.game
        if self.phase == TILE:
            self.deal.fill_tile_mask(mask)
        elif self.phase == BET:
            lo, hi, later, _ = self.options
            mask[g.bet_id(lo):g.bet_id(hi) + 1] = True
            mask[g.LATER] = later
        else:
            mask[g.ACCEPT] = mask[g.REFUSE] = True

    def _apply(self, a: int) -> None:
        g = self.game
        if self.phase == TILE:
            self._play_tile(a)
        elif self.phase == BET:
            p = self.current_player
            if a == g.LATER:
                self._end_bet()
            elif self.options[3]:
                self.pending_raise, self.raiser = g.bet_amount(a), p
                self.phase, self.current_player = ACCEPT, self.banker
                self._tail_dirty = True
            else:
                self._set_bet(p, g.bet_amount(a))
                self._end_bet()
        else:
            p = self.raiser
            if a == g.ACCEPT:
                self._set_bet(p, self.pending_raise)
            self.pending_raise, self.raiser = 0, None
            self.phase, self.current_player = TILE, p
            self._tail_dirty = True

    def _set_bet(self, p: int, amount: int) -> None:
        self.ledger.to_pot(p, amount - self.bets[p])
        self.bets[p] = amount
        # only p's bet and chips change: update those two tail entries (as fill_tail writes
        # them, absolute seats) instead of refilling the whole tail
        self.pub[BETS + p] = amount / self.cfg.max_bet
        self.pub[CHIPS + p] = float(self.ledger.balances[p]) / self.game.total_chips

    # ------------------------------------------------------------ settlement
    def _end_deal(self) -> None:
        deal, cfg, banker, led = self.deal, self.cfg, self.banker, self.ledger
        for s in range(NUM_PLAYERS):
            if s != banker and self.bets[s] == 0:  # Decision: a deal ended before he bet
                self._set_bet(s, cfg.min_bet)
        last = self.deal_index + 1 >= cfg.num_deals
        w = deal.winner
        if w is None:
            self.carried = [s != banker for s in range(NUM_PLAYERS)]
            if last:  # Decision: bets left after a drawn last deal go back to their owners
                self._return_bets()
        else:
            if w != banker:
                led.pay_from_pot(w, self.bets[w])
                led.transfer(banker, w, self.game.payout[self.bets[w]])
            for s in range(NUM_PLAYERS):
                if s != banker and s != w:
                    led.pay_from_pot(banker, self.bets[s])
            self.bets = [0] * NUM_PLAYERS
            self.carried = [False] * NUM_PLAYERS
        self.must_bet_first = [s == w and s != banker for s in range(NUM_PLAYERS)]
        self._tail_dirty = True
        rewards = self._earn()
        for s in range(NUM_PLAYERS):
            # float(wealth - mark) with plain ints: int / int is correctly rounded, as is
            # float(Fraction), so the value is identical and 4 Fraction ops are saved
            bal, (mnum, mden) = led.balances[s], self.mark[s]
            den = bal.denominator
            num = bal.numerator + self.bets[s] * den     # wealth = num / den
            rewards[s] += (num * mden - mnum * den) / (den * mden)
            self.mark[s] = (num, den)
        if last:
            self._finish()
        else:
            self._start(leader=self._next_leader([True] * NUM_PLAYERS))

    def _return_bets(self) -> None:
        for s in range(NUM_PLAYERS):
            self.ledger.pay_from_pot(s, self.bets[s])
        self.bets = [0] * NUM_PLAYERS

    # ------------------------------------------------------------ protocol extras
    def _num_deals(self) -> int:
        return self.cfg.num_deals

    def _copy_extra(self, new: BukiState) -> None:
        new.ledger = self.ledger.copy()
        new.bets, new.carried = list(self.bets), list(self.carried)
        new.must_bet_first, new.mark = list(self.must_bet_first), list(self.mark)

    def _check_extra(self) -> None:
        self.ledger.check()
        assert self.ledger.pot == sum(self.bets), "bets on the table must equal the pot"
        assert self.bets[self.banker] == 0, "the banker never bets"
        assert all(b == 0 or self.cfg.min_bet <= b <= self.cfg.max_bet for b in self.bets)

    def view(self, player: int) -> BukiView:
        return BukiView(
            **self._view_fields(player), banker=self.banker, chips=tuple(self.ledger.balances),
            bets=tuple(self.bets), carried=tuple(self.carried), must_bet_first=tuple(self.must_bet_first),
            min_bet=self.cfg.min_bet, max_bet=self.cfg.max_bet, bet_due=self.bet_due,
            pending_raise=self.pending_raise, raiser=self.raiser,
        )

    def stats(self) -> dict[str, list[float]]:
        deals = self.deal_index + 1
        start = Fraction(self.cfg.chips)
        net = [float(self.ledger.balances[s] + self.bets[s] - start) for s in range(NUM_PLAYERS)]
        return {
            "deals_won": [float(x) for x in self.deals_won],
            "chips_per_deal": [x / deals for x in net],
            "chip_change": net,
        }


class BukiGame(DominoGame):
    name = "buki_v0"
    state_class = BukiState
    tail_size = TAIL
    tail_blocks = [(0, 1), (4, 1), (8, 1), (12, 5), (32, 1), (36, 1), (44, 1)]

    def __init__(self, config: BukiConfig):
        self.n_bets = config.max_bet - config.min_bet + 1
        self.LATER = FIRST_GAME_ACTION + self.n_bets
        self.ACCEPT, self.REFUSE = self.LATER + 1, self.LATER + 2
        # the optional feature block sits after the tail (zero in ``pub``, filled per observer)
        self.tail_size = TAIL + (buki_features.FEATURES if config.features else 0)
        super().__init__(config, NUM_PLAYERS, self.REFUSE + 1)
        self.total_chips = NUM_PLAYERS * config.chips
        # payout[bet]: the banker's exact 2.5x, an int for even bets (no Fraction product per deal)
        self.payout = [exact(PAYOUT * b) for b in range(config.max_bet + 1)]
        if not config.features:  # no feature block: observe straight from the fast path (2 frames less)
            self.observe = partial(_encode.observe, self)

    def encode(self, view: BukiView) -> np.ndarray:
        out = super().encode(view)
        if self.config.features:
            buki_features.fill_features(out[CORE_SIZE + TAIL:], view, _legal_plays(view))
        return out

    def observe(self, state: BukiState, player: int) -> np.ndarray:
        out = super().observe(state, player)
        if self.config.features:
            view = state.view(player)
            buki_features.fill_features(out[CORE_SIZE + TAIL:], view, _legal_plays(view))
        return out

    def bet_id(self, amount: int) -> int:
        return FIRST_GAME_ACTION + amount - self.config.min_bet

    def bet_amount(self, action: int) -> int:
        return self.config.min_bet + action - FIRST_GAME_ACTION

    def pass_name(self) -> str:
        return "pass"

    def extra_action_name(self, a: int) -> str | None:
        if FIRST_GAME_ACTION <= a < self.LATER:
            return f"bet (or raise to) {self.bet_amount(a)}"
        return {self.LATER: "bet later (or keep the bet)", self.ACCEPT: "accept the raise",
                self.REFUSE: "refuse the raise"}.get(a)

    def fill_tail(self, out: np.ndarray, src: Any, p: int) -> None:
        """Tail (48): banker 0:4, bets / max_bet 4:8, chips / all chips 8:12, own turns begun
        one-hot 0..4+ 12:32, must bet before 1st turn 32:36, carried bet 36:40, bet decision 40,
        bet due now 41, accept decision 42, pending raise / max_bet 43, raiser 44:48."""
        n, cfg = NUM_PLAYERS, self.config
        out[(src.banker - p) % n] = 1.0
        for s in range(n):
            i = (s - p) % n
            out[4 + i] = src.bets[s] / cfg.max_bet
            out[8 + i] = float(src.chips[s]) / self.total_chips
            out[32 + i] = src.must_bet_first[s]
            out[36 + i] = src.carried[s]
        self.fill_flow(out, src, p)

    def fill_flow(self, out: np.ndarray, src: Any, p: int) -> None:
        """The flow entries (turns, phase, pending raise); ordinary steps update them in place
        (``BukiState._begin_turn`` / ``_end_bet``)."""
        n, turns = NUM_PLAYERS, src.turns
        for s in range(n):
            i = (s - p) % n
            out[12 + 5 * i:17 + 5 * i] = ONE_HOT5[turns[s] if turns[s] < 4 else 4]
        out[40] = src.phase == BET
        out[41] = src.bet_due
        out[42] = src.phase == ACCEPT
        out[43] = src.pending_raise / self.config.max_bet
        out[44:48] = 0.0
        if src.raiser is not None:
            out[44 + (src.raiser - p) % n] = 1.0

    def title(self) -> str:
        return "Buki"

    def seat_notes(self, view: BukiView) -> list[str]:
        return [("banker " if s == view.banker else
                 f"bet {view.bets[s] or '-'}{'*' if view.carried[s] else ''} ")
                + f"chips {_amt(view.chips[s])}" for s in range(view.num_players)]

    def footer(self, view: BukiView) -> list[str]:
        notes = [f"bets {view.min_bet}..{view.max_bet}; * = carried over a drawn deal"]
        if view.phase == BET:
            notes.append("bet due now" if view.bet_due else "you may bet now or later")
        if view.phase == ACCEPT:
            notes.append(f"P{view.raiser} asks to raise to {view.pending_raise}: accept or refuse")
        return notes


def _legal_plays(view: BukiView) -> list[int]:
    """The observer's legal tile actions when he is to play a tile (else none), from his view."""
    if view.current_player != view.player or view.phase != TILE:
        return []
    ends = view.ends
    if ends is None:
        return [2 * t for t in view.hand]
    plays = []
    for t in view.hand:
        a, b = buki_features.PAIRS[t]
        if ends[0] in (a, b):
            plays.append(2 * t)
        if ends[1] in (a, b):
            plays.append(2 * t + 1)
    return plays


def _amt(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{float(x):g}"


def make_game(**options: Any) -> BukiGame:
    return BukiGame(build(BukiConfig, options))
