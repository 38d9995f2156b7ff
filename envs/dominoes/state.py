"""The base State of the three domino games: an episode as a sequence of deals.

A game is a sequence of ``Deal``s (``line.py``); subclasses add their
phases (Buki bets, Pulle buy-backs) and their settlement. This module owns
stacked decks, the lead rule between deals, the cached legal mask, the game's
part of ``clone`` and ``determinize`` (the redeal itself is ``determinize.py``); the
plumbing (trace, rewards, the end, illegal ids) is the engine's ``RulesState``. numpy only.
"""
from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from parlor.envs.dominoes.determinize import resample_hidden
from parlor.envs.dominoes.line import N_TILES, PLAY_ACTIONS, Deal
from parlor.envs.dominoes.observer import DominoObserver
from parlor.envs.dominoes.view import DealResult, DominoView
from parlor.envs.engine.state import RulesState

if TYPE_CHECKING:
    from typing_extensions import Self  # typing.Self from Python 3.11

    from parlor.envs.dominoes.game import DominoGame

TILE, BET, ACCEPT, BUY_BACK, OVER = "tile", "bet", "accept", "buy_back", "over"
DEAL_OVER = "deal over"  # the phase of ended_view: a finished deal's last position, the episode going on


class DominoState(RulesState, ABC):
    """A running episode: the current deal plus the game's own bookkeeping."""

    # the game adds every deal's pips to running totals (Pulle), so they are counted openly
    # after a won deal too; otherwise only a blocked deal counts them
    counts_pips_every_deal = False
    observer_class = DominoObserver  # a game with tail events of its own subclasses it
    deal: Deal  # the deal in play, from the first _new_deal on (every game's __init__ deals)

    def __init__(self, game: DominoGame, rng: np.random.Generator, decks: Sequence[Sequence[int]] | None):
        self._begin(game, rng, decks)
        self.n = game.num_players
        self.deal_index = -1
        self.phase = TILE
        self.current_player: int | None = None
        self._mask: np.ndarray | None = None
        self.deals_won = [0] * self.n
        self.deals_drawn = 0
        self.last_deal: DealResult | None = None
        self.ended_deal: Deal | None = None  # the latest finished deal, as it ended (for ended_view)
        self.observer = self.observer_class(game.observation_shape[0], self.n)

    # ------------------------------------------------------------ dealing
    def _new_deal(self, active: Sequence[bool], hand_size: int, leader: int | None,
                  draw_mode: bool = False, max_draws: int | None = None) -> None:
        self.deal_index += 1
        if self.deal_index < len(self.decks):
            order = self.decks[self.deal_index]
        else:
            order = self.game.sample_deck(self.rng)
        self._dealt(order)
        self.deal = Deal(self.n, active, hand_size, order, leader, draw_mode, max_draws,
                         width=self.game.num_actions)
        self.current_player = self.deal.current
        self.phase = TILE
        self._cap = self._hand_capacity()   # read by every sync_play / sync_pass
        self.observer.deal_start(self)

    def _next_leader(self, active: Sequence[bool]) -> int:
        """The previous deal's winner or last player; the next active seat if he sits out."""
        seat = self.deal.next_leader()
        while not active[seat]:
            seat = (seat + 1) % self.n
        return seat

    # ------------------------------------------------------------ protocol
    def legal_mask(self) -> np.ndarray:
        if self._mask is None:
            if self.current_player is not None and self.phase == TILE:
                self._mask = self.deal.legal_tiles()   # the common case: one ufunc call
                return self._mask
            mask = np.zeros(self.game.num_actions, dtype=bool)
            if self.current_player is not None:
                self._fill_mask(mask)
            self._mask = mask
        return self._mask

    def _fill_mask(self, mask: np.ndarray) -> None:
        self.deal.fill_tile_mask(mask)

    def _apply_action(self, a: int) -> None:
        mask = self._mask
        if mask is None:
            mask = self.legal_mask()
        if not 0 <= a < mask.size or not mask[a]:
            raise self._illegal(a)
        self._mask = None
        if self.phase == TILE:   # every game's tile phase (saves a call on most steps)
            self._play_tile(a)
        else:
            self._apply(a)
        obs = self.observer
        if obs.tail_dirty or obs.step_sync:   # sync_tail, without a call on most steps
            obs.sync_tail(self)

    @abstractmethod
    def _apply(self, action: int) -> None:
        """Play a legal ``action`` outside the tile phase (the game decides what its ids mean);
        ``apply`` plays tile-phase actions with ``_play_tile`` itself."""

    def _play_tile(self, action: int) -> None:
        """A tile action (play, pass or draw) by the current player of the deal."""
        deal = self.deal
        p = deal.current
        if action < PLAY_ACTIONS:
            deal.play(action)
            self.observer.played(self, p, action)
        else:
            drawn = deal.pass_or_draw()
            self.observer.passed(self, p, drawn)
        if deal.result is not None:   # deal.over
            if deal.winner is not None:
                self.deals_won[deal.winner] += 1
            else:
                self.deals_drawn += 1
            earned = self._rewards.copy()
            self.ended_deal = deal  # never changed again: _end_deal deals a new Deal or finishes
            self.observer.deal_ended()
            self._end_deal()
            self._record_deal(deal, self._rewards - earned)
        else:
            self.current_player = deal.current
            self._begin_turn()

    def _record_deal(self, deal: Deal, paid: np.ndarray) -> None:
        """Keep how ``deal`` ended for the views (``DealResult``) once it is settled."""
        if deal.result is None:  # set when the deal ends (win, blocked or draw)
            raise RuntimeError("a deal still in play cannot be recorded as ended")
        counted = deal.result != "win" or self.counts_pips_every_deal
        self.last_deal = DealResult(self.deal_index - (deal is not self.deal), deal.result, deal.winner,
                                    tuple(deal.pips) if counted else None, tuple(float(x) for x in paid),
                                    self._deal_totals())

    def _deal_totals(self) -> tuple[int, ...] | None:
        """Hook: the running totals a settled deal leaves (Pulle), kept in ``DealResult``."""
        return None

    def _begin_turn(self) -> None:
        """Hook: a new turn of ``deal.current`` begins (Buki asks for bets here)."""

    @abstractmethod
    def _end_deal(self) -> None:
        """Score and settle a finished deal, then deal again or finish."""

    @abstractmethod
    def view(self, player: int) -> DominoView:
        """What ``player`` knows now: the game's own view dataclass."""

    def _finish(self, truncated: bool = False) -> None:
        self._end(truncated)
        self.phase = OVER

    # ------------------------------------------------------------ copies
    def _copy_rules(self) -> DominoState:
        new = copy.copy(self)
        new.deal = self.deal.copy()
        new.observer = self.observer.copy()
        new.deals_won = list(self.deals_won)
        new._mask = None
        self._copy_extra(new)
        return new

    def _copy_extra(self, new: Self) -> None:
        """Hook: copy the subclass's mutable fields into ``new``."""

    def determinize(self, player: int, rng: np.random.Generator) -> DominoState:
        """Other hands and the stock redealt consistently with ``player``'s view; later deals
        (stacked or not) come from a generator seeded by ``rng``."""
        new = self.clone()
        resample_hidden(new.deal, player, rng)
        new.observer.redealt(new)
        new.ended_deal = None  # its hidden tiles are the real ones: a sample keeps none of them
        new._resample_bookkeeping(rng)
        return new

    def check_invariants(self) -> None:
        deal = self.deal
        in_hands = deal.hands.sum(axis=0).astype(int)
        on_line = deal.played.sum(axis=0).astype(int)
        in_stock = np.bincount(np.array(deal.stock, dtype=int), minlength=N_TILES)
        total = in_hands + on_line + in_stock
        assert (total == 1).all(), f"tiles not conserved: {np.flatnonzero(total != 1)}"
        assert list(deal.hands.sum(axis=1)) == deal.counts, "hand counts out of sync"
        assert len(deal.line.placed) == int(on_line.sum())
        if self.current_player is not None:
            assert self.legal_mask().any(), "no legal action in a live state"
        self._check_extra()

    def _check_extra(self) -> None:
        """Hook: chips and the game's own conservation laws."""

    # ------------------------------------------------------------ views
    def _view_fields(self, player: int) -> dict[str, Any]:
        deal = self.deal
        layout = tuple(deal.line.layout())
        played = tuple(tuple(seq) for seq in deal.played_seq)
        return dict(
            game=self.game.name, player=player, num_players=self.n,
            current_player=self.current_player, phase=self.phase,
            deal_index=self.deal_index, num_deals=self._num_deals(), leader=deal.leader,
            first_by_weight=deal.by_weight, hand=tuple(deal.hand(player)), line=layout,
            ends=None if deal.line.empty else (deal.ends[0], deal.ends[1]), played=played,
            hand_counts=tuple(deal.counts),
            void=tuple(tuple(np.flatnonzero(deal.void[s]).tolist()) for s in range(self.n)),
            active=tuple(deal.active), stock_count=len(deal.stock), draws_this_turn=deal.draws,
            turns=tuple(deal.turns), hand_capacity=self._hand_capacity(), last_deal=self.last_deal,
        )

    def ended_view(self, player: int) -> Any:
        """``player``'s view of the latest finished deal as it ended (the line, his tiles, the
        tile counts; chips after its settlement), once the next deal is dealt; None before
        the first deal ends and while the finished deal is the one shown (the episode's
        end). A replay pictures it on the frame where the deal ends."""
        ended = self.ended_deal
        if ended is None or ended is self.deal:
            return None
        shown = copy.copy(self)  # shares everything (read only) but the fields set here
        shown.deal, shown.deal_index = ended, self.deal_index - 1
        shown.current_player, shown.phase = None, DEAL_OVER
        self._show_ended(shown)
        return shown.view(player)

    def _show_ended(self, shown: Self) -> None:
        """Hook: put back on ``shown`` (a shallow copy) what the settlement of the finished deal
        cleared and its view shows (Buki: the bets it settled)."""

    @abstractmethod
    def _num_deals(self) -> int:
        """How many deals the episode plays (for the observation's deal counter)."""

    def _hand_capacity(self) -> int:
        return self.deal.hand_size
