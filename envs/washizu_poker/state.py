"""The match state machine of Washizu draw poker (docs/rules.md §3).

A match is up to ``num_games`` games. Each game: ante 1, deal 5 cards to each
player still in the match (in turn order from the player after the dealer:
the first five cards of the deck to him, the next five to the next player, ...),
one draw in turn order, one betting round, showdown or a last player standing,
elimination at 0 chips, dealer rotation. Chips are ints (``State.ledger`` shows them
as an ``engine.chips.Ledger``).
"""
from __future__ import annotations

import copy
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from parlor.envs.engine.cards import BASE, JOKER_BASE
from parlor.envs.engine.chips import Ledger, split_evenly
from parlor.envs.engine.game import IllegalActionError
from parlor.envs.engine.table import next_active
from parlor.envs.engine.trace import Trace
from parlor.envs.washizu_poker import betting
from parlor.envs.washizu_poker.deck import HAND_SIZE, choose_washizu, full_deck
from parlor.envs.washizu_poker.encode import ObsParts, seat_row
from parlor.envs.washizu_poker.view import GameResult, WashizuView

if TYPE_CHECKING:
    from parlor.envs.washizu_poker.game import WashizuGame

DRAW, BET, OVER = 0, 1, 2
PHASE_NAMES = ("draw", "bet", "over")
NUM_DISCARDS = 32  # action ids 0..31: bit i set = discard hand position i
DROP, CALL, RAISE_BASE = 32, 33, 33  # raise by k is action RAISE_BASE + k (k = 1..max_raise)
SORT_KEY = [(int(BASE[c]) * 2 + c // 52) if c < JOKER_BASE else 1000 + c for c in range(len(BASE))]
DISCARDED = [tuple(i for i in range(5) if a >> i & 1) for a in range(NUM_DISCARDS)]  # positions per action
KEPT = [tuple(i for i in range(5) if not a >> i & 1) for a in range(NUM_DISCARDS)]
STATS = ("games_won", "showdowns", "dropped", "raised", "eliminated", "final_chips")


def sort_hand(cards: list[int]) -> list[int]:
    """Canonical hand order (by rank, suit, copy; jokers last): the discard positions."""
    return sorted(cards, key=SORT_KEY.__getitem__)


class WashizuState:
    def __init__(self, game: WashizuGame, rng: np.random.Generator, decks: Sequence[Sequence[int]] | None):
        cfg = game.config
        n = cfg.num_players
        self.game = game
        self.rng = rng
        self.decks = [tuple(d) for d in (decks or ())]
        self.trace = Trace.start(rng, self.decks)
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
        self.obs = ObsParts(n, tables, float(cfg.starting_chips * n))  # fast observe parts
        self.alive = [True] * n
        self.dealer = n - 1  # seat 0 acts first in the first game
        self.game_index = -1
        self.rewards = game.zero_rewards  # read-only shared zeros until a settlement pays (_settle)
        self._result: tuple | None = None  # GameResult fields of the previous game (see last_result)
        self.stat = {k: [0.0] * n for k in STATS}
        self._start_game()

    # ---------------------------------------------------------------- a game
    def _start_game(self) -> None:
        game = self.game
        n = game.num_players
        self.game_index += 1
        stacks, contrib, alive = self.stacks, self.contrib, self.alive
        self.chips_before = stacks[:]
        order = self.order = game.deal_order(self.dealer, alive)
        for p in order:  # ante (every player still in the match has a chip)
            stacks[p] -= 1
            contrib[p] += 1
        self.pot += len(order)
        if self.game_index < len(self.decks):
            deck = list(self.decks[self.game_index])
        else:
            # rng.permutation(game.deck_array).tolist() by shuffling a list: the same draws (the
            # same Fisher-Yates swaps), without the array round trip
            deck = game.deck_list.copy()
            self.rng.shuffle(deck)
        self.trace.dealt.append(tuple(deck))
        hands: list[list[int]] = [[] for _ in range(n)]
        key = game.hand_key
        for i, p in enumerate(order):
            hands[p] = sorted(deck[HAND_SIZE * i: HAND_SIZE * i + HAND_SIZE], key=key)  # sort_hand inlined
        at = HAND_SIZE * len(order)
        self.hands = hands
        self.stock = deck[at:][::-1]  # top of the stock = last element
        self.pile: list[int] = []
        self.in_hand = alive[:]
        self.n_in = len(order)
        self.bets = [0] * n
        self.level = 1
        self.to_act = 0
        self.discarded: list[list[int]] = [[] for _ in range(n)]
        self.drawn_cards: list[list[int]] = [[] for _ in range(n)]
        self.draw_turn = [-1] * n
        self.reshuffle_turn = -1  # draw turn at which the stock ran out (-1: not this game)
        self.reshuffle_taken = 0  # cards the reshuffling player drew before the reshuffle
        self.left_view: set[int] = set()
        self.cap_now = 0  # level cap during the betting round (changes only when someone drops)
        self.phase = DRAW
        self.turn = 0
        self.current_player: int | None = order[0]
        self._deal_obs()

    def _deal_obs(self) -> None:
        """``_rebuild_obs`` right after the deal: nobody has drawn or bet, nothing is discarded."""
        total, dealer, stacks = self.obs.total, self.dealer, self.stacks
        values: list[float] = []
        for p, alive in enumerate(self.alive):  # seat_row(alive, alive, -1, stack, 0, p == dealer, total)
            a = 1.0 if alive else 0.0
            values += (a, a, 0.0, 0.0, stacks[p] / total, 0.0, 1.0 if p == dealer else 0.0)
        # _sync_table in the draw phase (level 1, nothing to call)
        shared = [self.pot / total, 1 / total, 0.0, self.game_index / self.game.config.num_games, 1.0, 0.0]
        self.obs.reset_all(self.hands, values, shared, self.current_player)  # (no discards, nothing left view)

    def _pay(self, p: int, amount: int) -> None:
        if amount > self.stacks[p]:
            raise AssertionError(f"seat {p} cannot pay {amount} with {self.stacks[p]} chips")
        self.stacks[p] -= amount
        self.contrib[p] += amount
        self.pot += amount

    def _seat_row(self, p: int) -> tuple:
        """Seat ``p``'s ``enc.seat_row`` from the state."""
        d = len(self.discarded[p]) if self.draw_turn[p] >= 0 else -1
        return seat_row(self.alive[p], self.in_hand[p], d, self.stacks[p], self.bets[p], p == self.dealer,
                        self.obs.total)

    def _seat_values(self) -> list[float]:
        """Every seat's ``_seat_row`` in seat order, flat (``ObsParts.reset_all``/``set_tail``)."""
        return [x for p in range(self.game.num_players) for x in self._seat_row(p)]

    def _sync_seat(self, p: int) -> None:
        self.obs.set_seat(p, self._seat_row(p))

    def _table_shared(self) -> list[float]:
        """The first six ``enc.table_features`` (pot, level, cap, game number, draw phase,
        betting phase), shared by every observer."""
        total, phase = self.obs.total, self.phase
        return [self.pot / total, self.level / total, self.cap_now / total if phase == BET else 0.0,
                self.game_index / self.game.config.num_games, float(phase == DRAW), float(phase == BET)]

    def _sync_table(self) -> None:
        """Every observer's ``enc.table_features`` from the state (steps that change only a few
        of them write those alone: ``_call``, ``_raise``, ``_drop``, ``_draw``, ``apply``)."""
        total, phase, level = self.obs.total, self.phase, self.level
        to_call = [(level - b) / total if phase == BET else 0.0 for b in self.bets]
        self.obs.set_table(self._table_shared(), to_call, self.current_player)

    def _rebuild_obs(self) -> None:
        """Recompute every fast-observe part from the state."""
        self.obs.reset_all(self.hands, self._seat_values(), [0.0] * 6, None)
        self._sync_table()
        if any(self.discarded) or self.left_view:  # (reset_all cleared them)
            for p in range(self.game.num_players):
                self.obs.set_discards(p, self.discarded[p])
            self.obs.set_left(self.left_view)

    # ---------------------------------------------------------------- protocol
    def legal_mask(self) -> np.ndarray:
        # the game's masks are read-only and shared (no copy per step)
        if self.phase == DRAW:
            return self.game.draw_mask
        if self.phase == BET:
            return self.game.bet_masks[betting.raises_allowed(self.level, self.cap_now, self.game.config.max_raise)]
        return self.game.no_mask

    def cap(self) -> int:
        return betting.level_cap(self.stacks, self.bets, self.in_hand)

    def apply(self, action: int) -> None:
        a = int(action)
        p, phase = self.current_player, self.phase
        if phase == DRAW and 0 <= a < NUM_DISCARDS:
            self._draw(a)
        elif phase == BET and a == CALL:
            self._call()
        elif phase == BET and a == DROP:
            self._drop()
        elif phase == BET and RAISE_BASE < a <= RAISE_BASE + self.game.config.max_raise \
                and a - RAISE_BASE <= self.cap_now - self.level:
            self._raise(a - RAISE_BASE)
        else:
            raise IllegalActionError(a, np.flatnonzero(self.legal_mask()), self.game.action_name)
        if self.current_player != p:  # the "my turn" table feature (a full _sync_table set it already)
            self.obs.move_turn(p, self.current_player)
        self.trace.actions.append(a)

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def is_truncated(self) -> bool:
        return False

    def take_rewards(self) -> np.ndarray:
        out = self.rewards
        self.rewards = self.game.zero_rewards
        return out

    # ---------------------------------------------------------------- draw
    def _draw(self, action: int) -> None:
        p = self.current_player
        out = self._exchange(p, action) if action else []
        self.discarded[p] = out
        self.draw_turn[p] = self.turn
        self.obs.set_drawn(p, len(out))  # _sync_seat, only the entries that changed
        self.turn += 1
        if self.turn < len(self.order):
            self.current_player = self.order[self.turn]
        elif (cap := betting.betting_start(self.stacks, self.in_hand)) is not None:  # (nobody has bet yet)
            self.phase = BET
            self.to_act = self.n_in
            self.cap_now = cap
            self.current_player = self.order[0]
            # _sync_table, the entries that change: the cap, the phase flags, and the amount to
            # call, level - bet = level for everybody (nobody has bet yet)
            total = self.obs.total
            self.obs.begin_betting(self.cap_now / total, self.level / total)
        else:
            self._showdown()

    def _exchange(self, p: int, action: int) -> list[int]:
        """Seat ``p`` discards the positions of ``action`` (not 0) and draws as many: the
        discards, with hands, stock, pile, left view and their observation parts updated."""
        hand = self.hands[p]
        out = [hand[i] for i in DISCARDED[action]]
        k = len(out)
        stock = self.stock
        if len(stock) >= k:  # the usual case: take the top k cards (top first)
            new = stock[:-k - 1:-1]
            del stock[-k:]
        else:
            new = []
            for j in range(k):
                if not self.stock:
                    self._reshuffle(j)
                new.append(self.stock.pop())
        # Decision: the drawing player's own discards are set aside until his draw is
        # complete (they are not shuffled into a new stock he draws from).
        self.pile.extend(out)
        self.hands[p] = hand = sorted([hand[i] for i in KEPT[action]] + new, key=self.game.hand_key)
        self.drawn_cards[p] = new
        obs = self.obs
        obs.set_hand(p, hand)
        obs.add_discards(p, out)
        is_w = self.is_w
        gone = [c for c in out if is_w[c]]  # Washizu cards now in the left view
        came = [c for c in new if is_w[c]]  # Washizu cards back in view (drawn after a reshuffle)
        if gone or came:
            self.left_view.update(gone)
            self.left_view.difference_update(came)
            obs.move_washizu(p, gone, came)  # (the left view too)
        return out

    def _reshuffle(self, taken: int) -> None:
        """The stock ran out: the discard pile becomes a new shuffled stock."""
        self.stock = self.pile
        self.rng.shuffle(self.stock)
        self.pile = []
        self.reshuffle_turn = self.turn
        self.reshuffle_taken = taken

    # ---------------------------------------------------------------- betting
    def _drop(self) -> None:
        p = self.current_player
        self.in_hand[p] = False
        self.n_in -= 1
        self.to_act -= 1
        self.stat["dropped"][p] += 1
        self.obs.set_seat_entry(p, 1, 0.0)  # _sync_seat: only "in this game" changed
        if self.n_in > 1:
            self.cap_now = self.cap()
            self.obs.set_table_entry(2, self.cap_now / self.obs.total)
        self._next_bettor(p)

    def _call(self) -> None:
        p = self.current_player
        self._pay(p, self.level - self.bets[p])
        self.bets[p] = self.level
        self.to_act -= 1
        # _sync_seat and _sync_table, the entries that changed: p's stack and bet, the pot, p's call
        total = self.obs.total
        self.obs.paid(p, self.stacks[p] / total, self.bets[p] / total, self.pot / total,
                      (self.level - self.bets[p]) / total)
        self._next_bettor(p)

    def _raise(self, k: int) -> None:
        p = self.current_player
        self.level += k
        self._pay(p, self.level - self.bets[p])
        self.bets[p] = self.level
        self.to_act = self.n_in - 1  # everyone else still in must act again
        # _sync_seat and _sync_table, the entries that changed (the level: everybody's call)
        total, level = self.obs.total, self.level
        self.obs.raised(p, self.stacks[p] / total, self.bets[p] / total, self.pot / total, level / total,
                        [(level - b) / total for b in self.bets])
        self.stat["raised"][p] += 1
        self._next_bettor(p)

    def _next_bettor(self, p: int) -> None:
        if self.n_in == 1:
            winner = self.in_hand.index(True)
            self._settle((winner,), None)
        elif self.to_act == 0:
            self._showdown()
        else:
            self.current_player = next_active(p, self.in_hand)

    # ---------------------------------------------------------------- settlement
    def _showdown(self) -> None:
        hands, in_hand = self.hands, self.in_hand
        live = [p for p in self.order if in_hand[p]]  # (a seat in this game is in the match: in order)
        rank5 = self.game.rank5
        ranks = [rank5(hands[p]) for p in live]
        best = max(ranks)
        winners = tuple([p for p, r in zip(live, ranks) if r == best])
        shown = tuple([tuple(hands[p]) if in_hand[p] else None for p in range(self.game.num_players)])
        showdowns = self.stat["showdowns"]
        for p in live:
            showdowns[p] += 1
        self._settle(winners, shown)

    def _settle(self, winners: tuple[int, ...], shown: tuple | None) -> None:
        n = self.game.num_players
        pot = self.pot
        share, rest = split_evenly(pot, len(winners))  # tied best hands split; the remainder leaves play
        for w in winners:
            self.stacks[w] += share
        self.removed += rest
        self.contrib = [0] * n
        self.pot = 0
        for w in winners:
            self.stat["games_won"][w] += 1.0 / len(winners)
        self._result = (self.game_index, shown or (None,) * n, tuple(sorted(winners)), pot, rest)
        earned = [s - b for s, b in zip(self.stacks, self.chips_before)]
        if self.rewards is self.game.zero_rewards:
            self.rewards = np.array(earned, dtype=np.float64)
        else:
            self.rewards += earned
        for p in range(n):
            if self.alive[p] and self.stacks[p] == 0:
                self.alive[p] = False
                self.stat["eliminated"][p] = 1.0
        if self.game_index + 1 >= self.game.config.num_games or sum(self.alive) <= 1:
            self.phase = OVER
            self.current_player = None
            # _sync_seat of every seat and _sync_table at once (nothing to call, nobody's turn)
            self.obs.set_tail(self._seat_values(), self._table_shared(), None)
            self.stat["final_chips"] = [float(s) for s in self.stacks]
        else:
            self.dealer = next_active(self.dealer, self.alive)
            self._start_game()

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
    def clone(self) -> WashizuState:
        new = copy.copy(self)
        bits = type(self.rng.bit_generator)()
        bits.state = self.rng.bit_generator.state
        new.rng = np.random.Generator(bits)
        new.obs = self.obs.copy()
        for name in ("stacks", "contrib", "alive", "bets", "in_hand", "draw_turn", "stock", "pile", "order",
                     "chips_before"):
            setattr(new, name, list(getattr(self, name)))
        for name in ("hands", "discarded", "drawn_cards"):
            setattr(new, name, [list(x) for x in getattr(self, name)])
        new.left_view = set(self.left_view)
        if self.rewards is not self.game.zero_rewards:
            new.rewards = self.rewards.copy()
        new.stat = {k: list(v) for k, v in self.stat.items()}
        new.decks = list(self.decks)
        new.trace = self.trace.copy()
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
        parts = self.obs.copy()
        self._rebuild_obs()
        assert np.array_equal(parts.rows, self.obs.rows), "observation parts out of sync"
        total = self.game.config.starting_chips * n
        assert sum(self.stacks) + self.pot + self.removed == total
