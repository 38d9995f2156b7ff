"""docs/rules.md §3.6: one betting round of call / raise / drop, the level cap."""
from __future__ import annotations

import numpy as np
import pytest

from parlor.envs.engine.game import IllegalActionError
from parlor.envs.washizu_poker.match import BET, DRAW
from tests.washizu_poker.helpers import CALL, DROP, PAT, play, raise_by, rigged

HANDS3 = ("Ac Ad 2h 3s 4c", "Kc Kd 2d 3h 4s", "Qc Qd 5h 6s 8c")
OPTS3 = {"num_players": 3, "washizu": "none", "jokers": 0, "num_games": 1}


def bet_phase(**options):
    game, state = rigged(*HANDS3, **(OPTS3 | options))
    play(state, PAT, PAT, PAT)
    assert state.phase == BET and state.current_player == 0
    return game, state


def test_r3_6_betting_starts_after_the_draw_from_the_player_after_the_dealer() -> None:
    game, state = rigged(*HANDS3, **OPTS3)
    assert state.phase == DRAW and state.dealer == 2 and state.current_player == 0
    mask = state.legal_mask()
    assert mask[:32].all() and not mask[32:].any()
    play(state, PAT, PAT, PAT)
    mask = state.legal_mask()
    assert not mask[:32].any() and mask[DROP] and mask[CALL]
    assert mask[raise_by(1): raise_by(3) + 1].all()


def test_r3_6_the_first_call_costs_one_chip_and_a_lap_without_raise_ends_betting() -> None:
    game, state = bet_phase()
    play(state, CALL)
    assert state.bets == [1, 0, 0] and state.pot == 4
    rewards = play(state, CALL, CALL)
    assert state.is_terminal()  # showdown: the aces win 3 antes + 3 calls
    assert rewards.tolist() == [4.0, -2.0, -2.0]


def test_r3_6_a_raise_reopens_the_betting_for_players_who_already_called() -> None:
    game, state = bet_phase()
    play(state, CALL, CALL, raise_by(2))
    assert state.level == 3 and state.bets == [1, 1, 3]
    assert state.current_player == 0 and state.phase == BET
    play(state, CALL)
    assert state.current_player == 1 and state.phase == BET
    rewards = play(state, CALL)
    assert state.is_terminal()
    assert rewards.tolist() == [8.0, -4.0, -4.0]


def test_r3_6_a_re_raise_makes_the_raiser_act_again() -> None:
    game, state = bet_phase()
    play(state, raise_by(1), raise_by(1))
    assert state.level == 3 and state.current_player == 2
    play(state, CALL)
    assert state.current_player == 0  # seat 0 raised first but must answer seat 1's raise
    play(state, CALL)
    assert state.is_terminal()


def test_r3_6_dropped_chips_stay_in_the_pot_and_one_player_left_takes_it() -> None:
    game, state = bet_phase()
    rewards = play(state, raise_by(3), DROP, DROP)
    assert state.is_terminal()
    assert state.last_result.winners == (0,) and state.last_result.shown == (None, None, None)
    assert rewards.tolist() == [2.0, -1.0, -1.0]
    game, state = bet_phase()
    rewards = play(state, CALL, raise_by(1), DROP, DROP)
    assert state.last_result.winners == (1,)  # the kings win without a showdown
    assert rewards.tolist() == [-2.0, 3.0, -1.0]


def test_r3_6_level_cap_is_the_smallest_stack_still_in_counting_bets() -> None:
    # 3 chips each: 2 left after the ante, so the level can reach 2, never 3
    game, state = bet_phase(starting_chips=3)
    mask = state.legal_mask()
    assert mask[raise_by(1)] and not mask[raise_by(2)] and not mask[raise_by(3)]
    with pytest.raises(IllegalActionError, match="legal actions"):
        state.apply(raise_by(2))
    play(state, raise_by(1))
    assert state.level == 2
    assert not state.legal_mask()[raise_by(1):].any()  # only drop or call at the cap


def test_r3_6_cap_rises_when_the_short_stack_drops() -> None:
    # game 1: seat 0 wins 5 chips (4 -> 7), seat 1 has 2, seat 2 has 3 left
    game, state = rigged(*HANDS3, **(OPTS3 | {"starting_chips": 4, "num_games": 2}))
    play(state, PAT, PAT, PAT, CALL, CALL, DROP)
    assert state.stacks == [7 - 1, 2 - 1, 3 - 1]  # game 2 started: antes paid
    assert state.dealer == 0 and state.current_player == 1
    play(state, PAT, PAT, PAT)
    assert state.cap_now == 1 and not state.legal_mask()[raise_by(1):].any()
    play(state, DROP)  # the short stack (seat 1) drops: cap = min(2, 6) = 2
    assert state.legal_mask()[raise_by(1)] and not state.legal_mask()[raise_by(2)]


def test_r3_6_no_betting_round_when_a_player_in_has_no_chip_after_the_ante() -> None:
    game, state = rigged(*HANDS3, **(OPTS3 | {"starting_chips": 1}))
    rewards = play(state, PAT, PAT, PAT)
    assert state.is_terminal()  # straight to the showdown; two players are out, the match ends
    assert rewards.tolist() == [2.0, -1.0, -1.0]


def test_r3_6_betting_never_asks_an_illegal_phase_action() -> None:
    game, state = bet_phase()
    with pytest.raises(IllegalActionError, match="legal actions: 32 \\(drop\\), 33 \\(call\\)"):
        state.apply(5)
    game, state = rigged(*HANDS3, **OPTS3)
    with pytest.raises(IllegalActionError):
        state.apply(CALL)
    assert isinstance(IllegalActionError(1, [0]), ValueError)
    np.testing.assert_array_equal(np.flatnonzero(state.legal_mask()), np.arange(32))


def test_betting_start_is_the_cap_before_any_bet_or_none_without_a_betting_round() -> None:
    from parlor.envs.washizu_poker.betting import betting_start, level_cap

    def betting_needed(stacks: list[int], in_hand: list[bool]) -> bool:
        """docs/rules.md §3.6: no betting round when a player still in has no chip left after the
        ante, or when fewer than two players are in."""
        live = [s for s, i in zip(stacks, in_hand) if i]
        return len(live) >= 2 and min(live) > 0

    rng = np.random.default_rng(0)
    for _ in range(500):
        n = int(rng.integers(2, 7))
        stacks = rng.integers(0, 4, n).tolist()
        in_hand = (rng.random(n) < 0.7).tolist()
        expected = level_cap(stacks, [0] * n, in_hand) if betting_needed(stacks, in_hand) else None
        assert betting_start(stacks, in_hand) == expected
