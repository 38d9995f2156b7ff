"""The match state machine of Washizu draw poker (docs/rules.md §3).

A match is up to ``num_games`` games. Each game: ante 1, deal 5 cards to each
player still in the match (in turn order from the player after the dealer:
the first five cards of the deck to him, the next five to the next player, ...),
one draw in turn order, one betting round, showdown or a last player standing,
elimination at 0 chips, dealer rotation. Chips are ints (``State.ledger`` shows them
as an ``engine.chips.Ledger``).

``WashizuState`` sets the fields (declared in ``fields.py``) and holds the engine protocol
(masks, ``_apply_action``, views, copies, checks); the rule steps are mixins named after
their rule: ``match`` (phases, ante and deal, elimination and the match's end), ``draw``,
``betting`` and ``showdown``. The steps tell ``self.observer`` (``observer.py``) what
happened; it keeps every seat's observation.
"""
from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from parlor.envs.engine.cards import BASE, JOKER_BASE
from parlor.envs.engine.chips import Ledger
from parlor.envs.washizu_poker.betting import CALL, DROP, RAISE_BASE, BettingSteps, raises_allowed
from parlor.envs.washizu_poker.deck import HAND_SIZE, choose_washizu, full_deck
from parlor.envs.washizu_poker.draw import NUM_DISCARDS, DrawSteps
from parlor.envs.washizu_poker.match import BET, DRAW, OVER, PHASE_NAMES, MatchSteps
from parlor.envs.washizu_poker.observer import WashizuObserver
from parlor.envs.washizu_poker.showdown import ShowdownSteps
from parlor.envs.washizu_poker.view import GameResult, WashizuView

if TYPE_CHECKING:
    from parlor.envs.washizu_poker.game import WashizuGame

SORT_KEY = [(int(BASE[c]) * 2 + c // 52) if c < JOKER_BASE else 1000 + c for c in range(len(BASE))]
STATS = ("games_won", "showdowns", "dropped", "raised", "eliminated", "final_chips")


def sort_hand(cards: list[int]) -> list[int]:
    """Canonical hand order (by rank, suit, copy; jokers last): the discard positions."""
    return sorted(cards, key=SORT_KEY.__getitem__)


class WashizuState(MatchSteps, DrawSteps, BettingSteps, ShowdownSteps):
    def __init__(self, game: WashizuGame, rng: np.random.Generator, decks: Sequence[Sequence[int]] | None):
        cfg = game.config
        n = cfg.num_players
        self._begin(game, rng, decks)
        # a stacked first deck fixes the Washizu set too (drawn from a generator seeded by
        # the deck), so a replayed deck replays the same deal whatever the seed
        self.washizu_ids = choose_washizu(cfg, np.random.default_rng(list(self.decks[0])) if self.decks else rng)
        tables = game.washizu_tables(self.washizu_ids)
        self.is_w = tables.is_w
        # Chips are plain ints (Fraction arithmetic costs microseconds per operation):
        # ``stacks`` + ``contrib`` (ante and bets, ``pot`` their sum) + ``removed`` (split
        # remainders) always add up to the starting chips; ``ledger`` shows them as a Ledger.
        self.removed = 0
        self.stacks = [cfg.starting_chips] * n  # chips not in the pot
        self.contrib = [0] * n
        self.pot = 0
        self.observer = WashizuObserver(n, tables, float(cfg.starting_chips * n), cfg.num_games)
        self.alive = [True] * n
        self.dealer = n - 1  # seat 0 acts first in the first game
        self.game_index = -1
        self._result = None  # GameResult fields of the previous game (see last_result)
        self.ended_game = None  # the previous game's fields as it ended (see ended_view)
        self.stat = {k: [0.0] * n for k in STATS}
        self._start_game()

    # ---------------------------------------------------------------- protocol
    def legal_mask(self) -> np.ndarray:
        # the game's masks are read-only and shared (no copy per step)
        if self.phase == DRAW:
            return self.game.draw_mask
        if self.phase == BET:
            return self.game.bet_masks[raises_allowed(self.level, self.cap_now, self.game.config.max_raise)]
        return self.game.no_mask

    def _apply_action(self, a: int) -> None:
        p, phase = self.current_player, self.phase
        if p is None:  # (RulesState.apply refuses every action once the match is over)
            raise self._illegal(a)
        if phase == DRAW and 0 <= a < NUM_DISCARDS:
            self._draw(p, a)
        elif phase == BET and a == CALL:
            self._call(p)
        elif phase == BET and a == DROP:
            self._drop(p)
        elif phase == BET and RAISE_BASE < a <= RAISE_BASE + self.game.config.max_raise \
                and a - RAISE_BASE <= self.cap_now - self.level:
            self._raise(p, a - RAISE_BASE)
        else:
            raise self._illegal(a)

    # ---------------------------------------------------------------- views
    @property
    def last_result(self) -> GameResult | None:
        """How the previous game ended (built when read: a frozen dataclass costs microseconds per game)."""
        return None if self._result is None else GameResult(*self._result)

    @property
    def ledger(self) -> Ledger:
        """The chips as an ``engine.chips.Ledger`` (balances include chips in the pot), for checks and tests."""
        ledger = Ledger([s + c for s, c in zip(self.stacks, self.contrib)], removed=Fraction(self.removed))
        ledger.total = Fraction(self.game.config.starting_chips * self.game.num_players)
        return ledger

    def ended_view(self, player: int) -> WashizuView | None:
        """``player``'s view of the game that has just ended, as it ended (hands, bets, draws;
        chips after its settlement, phase ``"game over"``), once the next game is dealt; None
        otherwise. A replay pictures it on the frame where the game ends."""
        ended = self.ended_game
        if ended is None or self.current_player is None or ended[0] != self.game_index - 1:
            return None
        shown = copy.copy(self)  # shares everything (read only) but the fields set here
        (shown.game_index, shown.dealer, shown.hands, shown.in_hand, shown.bets, shown.discarded, shown.draw_turn,
         shown.left_view, shown.level, shown.stacks, shown.contrib, shown.pot) = ended
        shown.current_player = None
        return dataclasses.replace(shown.view(player), phase="game over")

    def view(self, player: int) -> WashizuView:
        n = self.game.num_players
        cfg = self.game.config
        is_w = self.is_w
        return WashizuView(
            player=player,
            num_players=n,
            phase=PHASE_NAMES[self.phase],
            current_player=self.current_player,
            game_number=self.game_index,
            num_games=cfg.num_games,
            dealer=self.dealer,
            hand=tuple(self.hands[player]),
            washizu=self.washizu_ids,
            visible=tuple(tuple(c for c in self.hands[s] if is_w[c]) for s in range(n)),
            left_view=tuple(sorted(self.left_view)),
            my_discards=tuple(self.discarded[player]),
            drawn=tuple(len(self.discarded[s]) if self.draw_turn[s] >= 0 else -1 for s in range(n)),
            stacks=tuple(self.stacks),
            bets=tuple(self.bets),
            in_hand=tuple(self.in_hand),
            alive=tuple(self.alive),
            pot=self.pot,
            level=self.level,
            cap=self.cap_now if self.phase == BET else 0,
            max_raise=cfg.max_raise,
            total_chips=cfg.starting_chips * n,
            last_result=self.last_result,
        )

    def stats(self) -> dict[str, list[float]]:
        return {k: list(v) for k, v in self.stat.items()}

    # ---------------------------------------------------------------- copies and checks
    def _copy_rules(self) -> WashizuState:
        new = copy.copy(self)
        new.observer = self.observer.copy()
        for name in ("stacks", "contrib", "alive", "bets", "in_hand", "draw_turn", "stock", "pile", "order",
                     "chips_before"):
            setattr(new, name, list(getattr(self, name)))
        for name in ("hands", "discarded", "drawn_cards"):
            setattr(new, name, [list(x) for x in getattr(self, name)])
        new.left_view = set(self.left_view)
        new.stat = {k: list(v) for k, v in self.stat.items()}
        return new

    def determinize(self, player: int, rng: np.random.Generator) -> WashizuState:
        from parlor.envs.washizu_poker.determinize import determinize

        return determinize(self, player, rng)

    def check_invariants(self) -> None:
        self.ledger.check()
        assert all(s >= 0 for s in self.stacks) and all(c >= 0 for c in self.contrib)
        assert self.pot == sum(self.contrib)
        n = self.game.num_players
        if self.phase != OVER:
            cards = [c for h in self.hands for c in h] + self.stock + self.pile
            assert sorted(cards) == sorted(full_deck(self.game.config)), "cards not conserved"
            for p in range(n):
                assert len(self.hands[p]) == (HAND_SIZE if self.alive[p] else 0)
                assert self.hands[p] == sort_hand(self.hands[p])
            assert self.pot == len(self.order) + sum(self.bets)
            assert all(b <= self.level for b in self.bets)
            assert self.phase != BET or self.level <= self.cap() == self.cap_now
        self.observer.verify(self)
        total = self.game.config.starting_chips * n
        assert sum(self.stacks) + self.pot + self.removed == total
