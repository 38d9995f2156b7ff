"""The match of Washizu draw poker (docs/rules.md §3.4, §3.8): phases, ante and deal, and
what follows a game's settlement (elimination, the match's end, the dealer moving on).

A mixin of ``WashizuState`` over ``WashizuFields`` (the fields, and the steps of the other
mixins).
"""
from __future__ import annotations

from parlor.envs.engine.table import next_active
from parlor.envs.washizu_poker.deck import HAND_SIZE
from parlor.envs.washizu_poker.fields import WashizuFields

DRAW, BET, OVER = 0, 1, 2
PHASE_NAMES = ("draw", "bet", "over")


class MatchSteps(WashizuFields):
    """Starting a game and ending one."""

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
        self._dealt(deck)
        hands: list[list[int]] = [[] for _ in range(n)]
        key = game.hand_key
        for i, p in enumerate(order):
            hands[p] = sorted(deck[HAND_SIZE * i: HAND_SIZE * i + HAND_SIZE], key=key)  # sort_hand inlined
        at = HAND_SIZE * len(order)
        self.hands = hands
        self.stock = deck[at:][::-1]  # top of the stock = last element
        self.pile = []
        self.in_hand = alive[:]
        self.n_in = len(order)
        self.bets = [0] * n
        self.level = 1
        self.to_act = 0
        self.discarded = [[] for _ in range(n)]
        self.drawn_cards = [[] for _ in range(n)]
        self.draw_turn = [-1] * n
        self.reshuffle_turn = -1  # draw turn at which the stock ran out (-1: not this game)
        self.reshuffle_taken = 0  # cards the reshuffling player drew before the reshuffle
        self.left_view = set()
        self.cap_now = 0  # level cap during the betting round (changes only when someone drops)
        self.phase = DRAW
        self.turn = 0
        self.current_player = order[0]
        self.observer.game_dealt(self)

    def _end_game(self) -> None:
        """After a game's settlement (§3.8): a player with 0 chips is out; the match ends after
        ``num_games`` games or when one player has chips, else the dealer moves on."""
        n = self.game.num_players
        for p in range(n):
            if self.alive[p] and self.stacks[p] == 0:
                self.alive[p] = False
                self.stat["eliminated"][p] = 1.0
        if self.game_index + 1 >= self.game.config.num_games or sum(self.alive) <= 1:
            self.phase = OVER
            self._end()
            self.observer.match_ended(self)
            self.stat["final_chips"] = [float(s) for s in self.stacks]
        else:
            # the finished game as it ended, for a replay's picture of it (WashizuState.ended_view):
            # _start_game binds new per-game lists, so references keep these; it changes the chips in place
            self.ended_game = (self.game_index, self.dealer, self.hands, self.in_hand, self.bets, self.discarded,
                               self.draw_turn, self.left_view, self.level, self.stacks[:], self.contrib[:], self.pot)
            self.dealer = next_active(self.dealer, self.alive)
            self._start_game()

