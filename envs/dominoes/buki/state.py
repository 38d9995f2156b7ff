"""The Buki State: the betting phases, the settlement of a deal, chips and the observation's tail
(the game's rules: ``envs/dominoes/buki/__init__.py``).
"""
from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from parlor.envs.dominoes.buki.view import BukiView
from parlor.envs.dominoes.encode import CORE_SIZE
from parlor.envs.dominoes.observer import DominoObserver
from parlor.envs.dominoes.state import ACCEPT, BET, TILE, DominoState
from parlor.envs.engine.chips import Ledger

if TYPE_CHECKING:
    from parlor.envs.dominoes.buki.game import BukiGame

NUM_PLAYERS = 4
PAYOUT = Fraction(5, 2)
TAIL = 48
BETS, CHIPS = CORE_SIZE + 4, CORE_SIZE + 8    # absolute offsets in the observation
TURNS, FLAGS = CORE_SIZE + 12, CORE_SIZE + 40
ONE_HOT5 = np.eye(5, dtype=np.float32)



class BukiObserver(DominoObserver):
    """Buki's tail entries that change without a full refill (turn counts, bet flags, a bet),
    and the events that change the rest (a raise offered to the banker, his answer)."""

    def turn_begun(self, p: int, k: int) -> None:
        """Seat ``p`` begins its ``k``-th turn: the one-hot moves from k - 1 to k (past 4
        turns it stays at 4+)."""
        if k > 4:
            return
        i = TURNS + 5 * p + k
        self.cells[i - 1] = 0.0
        self.cells[i] = 1.0

    def bet_open(self, may_defer: bool) -> None:
        self.cells[FLAGS] = 1.0
        self.cells[FLAGS + 1] = 0.0 if may_defer else 1.0

    def bet_closed(self) -> None:
        self.cells[FLAGS] = self.cells[FLAGS + 1] = 0.0

    def bet_placed(self, state: BukiState, p: int) -> None:
        """Only ``p``'s bet and chips changed (as fill_tail writes them, absolute seats)."""
        self.pub[BETS + p] = state.bets[p] / state.cfg.max_bet
        self.pub[CHIPS + p] = float(state.ledger.balances[p]) / state.game.total_chips

    def raise_offered(self) -> None:
        """A raise awaits the banker's answer: the phase, the raise and the raiser change."""
        self.tail_dirty = True

    def raise_answered(self) -> None:
        """The banker answered a raise (the bet may have changed): back to the tile phase."""
        self.tail_dirty = True


class BukiState(DominoState):
    observer_class = BukiObserver
    observer: BukiObserver
    game: BukiGame

    def __init__(self, game: BukiGame, rng: np.random.Generator, decks: Sequence[Sequence[int]] | None):
        super().__init__(game, rng, decks)
        cfg = game.config
        self.cfg = cfg
        self.banker = cfg.banker
        self.ledger = Ledger.equal(NUM_PLAYERS, cfg.chips)
        self.bets = [0] * NUM_PLAYERS        # whole chips on the table (in the ledger's pot)
        self.carried = [False] * NUM_PLAYERS
        self.settled_bets: tuple[int, ...] = (0,) * NUM_PLAYERS  # the bets the latest finished deal settled
        self.must_bet_first = [False] * NUM_PLAYERS
        self.pending_raise = 0
        self.raiser: int | None = None
        self.options = (0, 0, False, False)  # bet phase: lowest, highest amount, may defer, needs accept
        self.mark = [(cfg.chips, 1)] * NUM_PLAYERS   # wealth at the last reward, as (num, den)
        self._start(leader=None)
        self.observer.sync_tail(self)

    @property
    def chips(self) -> list[int | Fraction]:
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
        # The observer moves the tail's flow entries where they change (a full fill after an
        # event rewrites them all): turn counts only grow, one per turn begun, and the bet
        # flags are set only in the BET phase (zero whenever the phase is TILE).
        deal = self.deal
        p = deal.current
        self.observer.turn_begun(p, deal.turns[p])
        options = None if p == self.banker else self._bet_options(p)   # (the banker never bets)
        if options is None:
            self.phase = TILE
        else:
            self.phase = BET
            self.options = options
            self.observer.bet_open(options[2])

    def _end_bet(self) -> None:
        """BET -> TILE: clear the bet flags."""
        self.phase = TILE
        self.observer.bet_closed()

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
            p = self.deal.current  # the bettor: the seat whose turn begins
            if a == g.LATER:
                self._end_bet()
            elif self.options[3]:
                self.pending_raise, self.raiser = g.bet_amount(a), p
                self.phase, self.current_player = ACCEPT, self.banker
                self.observer.raise_offered()
            else:
                self._set_bet(p, g.bet_amount(a))
                self._end_bet()
        else:
            raiser = self.raiser
            assert raiser is not None  # the ACCEPT phase answers a raiser's raise
            if a == g.ACCEPT:
                self._set_bet(raiser, self.pending_raise)
            self.pending_raise, self.raiser = 0, None
            self.phase, self.current_player = TILE, raiser
            self.observer.raise_answered()

    def _set_bet(self, p: int, amount: int) -> None:
        self.ledger.to_pot(p, amount - self.bets[p])
        self.bets[p] = amount
        self.observer.bet_placed(self, p)

    # ------------------------------------------------------------ settlement
    def _end_deal(self) -> None:
        deal, cfg, banker, led = self.deal, self.cfg, self.banker, self.ledger
        for s in range(NUM_PLAYERS):
            if s != banker and self.bets[s] == 0:  # Decision: a deal ended before he bet
                self._set_bet(s, cfg.min_bet)
        self.settled_bets = tuple(self.bets)
        last = self.deal_index + 1 >= cfg.num_deals
        w = deal.winner
        if w is None:
            self.carried = [s != banker for s in range(NUM_PLAYERS)]
            if last:  # Decision: bets left after a drawn last deal go back to their owners
                self._return_bets()
        else:
            # the banker collects the losing bets before he pays the winner's 2.5x: the chips
            # bound (BukiConfig) counts them in, so paying first could fail (docs/rules.md §4a.5)
            for s in range(NUM_PLAYERS):
                if s != banker and s != w:
                    led.pay_from_pot(banker, self.bets[s])
            if w != banker:
                led.pay_from_pot(w, self.bets[w])
                led.transfer(banker, w, self.game.payout(self.bets[w]))
            self.bets = [0] * NUM_PLAYERS
            self.carried = [False] * NUM_PLAYERS
        self.must_bet_first = [s == w and s != banker for s in range(NUM_PLAYERS)]
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

    def _show_ended(self, shown: BukiState) -> None:
        shown.bets = list(self.settled_bets)

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
