"""The fields of a Washizu poker match and the steps its rule mixins call across.

``WashizuState`` is put together from mixins named after their rule (``match``, ``draw``,
``betting``, ``showdown``) over this base. Each mixin reads and writes the match's fields
and calls steps that another mixin (or the State) defines; declaring them here, once, lets
every mixin be read and type-checked on its own. Nothing here runs a rule: the fields are
set by ``WashizuState.__init__`` and ``MatchSteps._start_game``, the steps are implemented
by the modules named beside them.
"""
from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING

from parlor.envs.engine.state import RulesState

if TYPE_CHECKING:
    from parlor.envs.washizu_poker.game import WashizuGame
    from parlor.envs.washizu_poker.observer import WashizuObserver

# GameResult's fields (game number, shown hands, winners, pot, removed), kept as a plain tuple
ResultFields = tuple[int, tuple[tuple[int, ...] | None, ...], tuple[int, ...], int, int]
# what ``MatchSteps._end_game`` keeps of a game as it ended (``WashizuState.ended_view``):
# game index, dealer, hands, in_hand, bets, discarded, draw_turn, left_view, level, stacks,
# contrib, pot
EndedGame = tuple[int, int, list[list[int]], list[bool], list[int], list[list[int]], list[int], set[int], int,
                  list[int], list[int], int]


class WashizuFields(RulesState):
    """The fields every Washizu rule step reads, and the steps they call across mixins."""

    game: WashizuGame
    # ---- the match (WashizuState.__init__)
    washizu_ids: tuple[int, ...]  # the transparent cards of this match
    is_w: list[bool]  # per card id: a Washizu card
    stacks: list[int]  # chips not in the pot
    contrib: list[int]  # chips in the pot (ante and bets) per seat
    pot: int  # sum(contrib)
    removed: int  # split remainders that left play
    alive: list[bool]  # still in the match
    dealer: int
    game_index: int
    observer: WashizuObserver  # every seat's observation, told each event by the steps
    stat: dict[str, list[float]]
    _result: ResultFields | None  # how the previous game ended (WashizuState.last_result)
    ended_game: EndedGame | None  # the previous game as it ended (WashizuState.ended_view)
    # ---- one game (MatchSteps._start_game)
    phase: int  # match.DRAW, BET or OVER
    order: list[int]  # the seats dealt in, in turn order
    chips_before: list[int]  # each seat's chips before the ante (what the game earned)
    hands: list[list[int]]  # sorted hands ([] for a seat out of the match)
    stock: list[int]  # top of the stock = last element
    pile: list[int]  # discards waiting for a reshuffle
    in_hand: list[bool]  # still in this game
    n_in: int  # sum(in_hand)
    bets: list[int]  # chips bet in the betting round (ante excluded)
    level: int  # the bet everyone still in must match
    cap_now: int  # the level cap of the betting round (0 outside it)
    to_act: int  # bettors still to act before the round closes
    turn: int  # draw turns taken
    discarded: list[list[int]]  # each seat's discards this game
    drawn_cards: list[list[int]]  # the cards each seat drew, in drawing order
    draw_turn: list[int]  # the draw turn each seat took (-1: not yet)
    reshuffle_turn: int  # the draw turn at which the stock ran out (-1: not this game)
    reshuffle_taken: int  # cards the reshuffling seat drew before the reshuffle
    left_view: set[int]  # Washizu cards discarded this game

    # ---- steps the mixins call across one another
    @abstractmethod
    def _showdown(self) -> None:
        """The hands still in are compared and the pot paid (``showdown.py``)."""

    @abstractmethod
    def _settle(self, winners: tuple[int, ...], shown: tuple[tuple[int, ...] | None, ...] | None) -> None:
        """``winners`` take the pot; the game ends (``showdown.py``)."""

    @abstractmethod
    def _end_game(self) -> None:
        """Elimination, the match's end or the next deal (``match.py``)."""

    def _pass_turn(self, player: int) -> None:
        """``player`` acts next (a step that ends a game tells the observer the next deal or
        the match's end instead)."""
        self.observer.turn_passed(self.current_player, player)
        self.current_player = player
