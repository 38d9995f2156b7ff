"""Foul-risk estimators (agents.ofc.risk): the potential of potential-based shaping."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from parlor.agents.ofc.advisor import OFCAdvisor
from parlor.agents.ofc.risk import RISK_SAMPLES, foul_risk
from parlor.envs.ofc.game import make_game
from parlor.envs.ofc.view import OFCView
from parlor.envs.ofc_outlook import features as F
from parlor.envs.ofc_outlook.rollouts import completed_turn, turn_candidates
from tests.ofc.helpers import turn_view


def test_foul_risk_is_exact_on_the_last_turn() -> None:
    # Qh in the middle (K K Q) with 5h/9c on top keeps the rows in order: a clean plan exists
    assert foul_risk(turn_view(("Qs Qd", "Ks Kd 2c 7h", "3s 3d 3c 4h 4d"), ("", "", ""), "Qh 5h 9c"), 1) == 0.0
    # the middle 2 3 4 5 + Qh/5h/9c makes at most a pair of fives: under the top's kings
    # and over the bottom's jack-high: every plan fouls
    assert foul_risk(turn_view(("Ks Kd", "2s 3d 4h 5c", "6c 7d 8h 9s Jc"), ("", "", ""), "Qh 5h 9c"), 1) == 1.0


def test_foul_risk_is_the_safest_plans_strongest_first_foul_rate() -> None:
    # Ah in the middle makes A-high two pair: no completion fouls (see the outlook test above)
    assert foul_risk(turn_view(("2s 3d", "8s 8d 9c 9h", "Ks Kd Kc"), ("", "", ""), "Ah 4s 6d"), 7) == 0.0
    # kings on top over Q Q 2 3 in the middle: Kh fouls wherever it goes, and after a
    # discard only a middle of two pair / trips over a bottom full house escapes
    risky = foul_risk(turn_view(("Ks Kd", "Qs Qd 2h 3h", "4c 4d 5c 5d"), ("", "", ""), "Kh 8s 9s"), 7)
    assert risky > 0.9
    # an opening: the lowest of the 232 plans (3^5 less the 11 with over three cards on
    # top) strongest-first foul rates
    opening = replace(turn_view(("", "", ""), ("", "", ""), "As Kd 7c 4h 2s"), discards_owed=0)
    cands, risks = sampled_safest(opening)
    assert len(cands) == 3 ** 5 - 11 and 0.0 < risks.min() < risks.max()
    assert foul_risk(opening, F.turn_key(opening)) == risks.min()


def test_foul_risk_stays_put_while_the_seat_follows_its_safest_plan() -> None:
    game = make_game(variant="pineapple")
    state = game.new_state(np.random.default_rng(5))
    followed = 0
    while not state.is_terminal():
        p = state.current_player
        v = state.view(p)
        risk = foul_risk(v, F.turn_key(v))
        cands, stats = sampled_safest(v)
        state.apply(cands[int(np.argmin(stats))][0])
        if state.is_terminal() or state.current_player != p or not state.view(p).pending:
            continue
        after = state.view(p)
        assert F.turn_key(after) == F.turn_key(v)
        assert foul_risk(after, F.turn_key(after)) == risk  # the same draws, the plan still there
        followed += 1
    assert followed > 10


def sampled_safest(v: OFCView) -> tuple[list[list[int]], np.ndarray]:
    """Every plan of the turn and its strongest-first foul rate (foul_risk's numbers)."""
    cands = turn_candidates(v)
    risks = np.array([foul_risk_of_plan(v, c) for c in cands])
    return cands, risks


def foul_risk_of_plan(v: OFCView, plan: list[int]) -> float:
    stats = completed_turn(v, [plan], lambda pool: np.random.default_rng(F.turn_key(v)).random((RISK_SAMPLES, len(pool))), 1.0)
    return float(stats.foul[0])


def test_stat_estimates_follow_the_foul_risk_and_end_at_the_real_foul_rate() -> None:
    game = make_game(variant="pineapple", features=True)
    rich, plain = OFCAdvisor(game), OFCAdvisor(make_game(variant="pineapple"))
    assert rich.estimated_stats == ("foul", "foul:endgame")
    assert OFCAdvisor(make_game(variant="original")).estimated_stats == ("foul",)
    state = game.new_state(np.random.default_rng(8))
    rng = np.random.default_rng(2)
    checked = 0
    while not state.is_terminal():
        p = state.current_player
        v = state.view(p)
        expected = foul_risk(v, F.turn_key(v)) if v.pending else None
        assert rich.stat_estimates(state, p) == {"foul": expected}
        assert plain.stat_estimates(state, p) == {"foul": expected}  # features or not
        checked += expected is not None
        state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
    assert checked > 20
    for p in range(2):
        assert rich.stat_estimates(state, p) == {"foul": state.stats()["foul"][p]}


def test_stat_estimates_in_a_multi_hand_episode_count_the_finished_hands() -> None:
    game = make_game(variant="pineapple", num_hands=2)
    state = game.new_state(np.random.default_rng(3))
    rng = np.random.default_rng(4)
    while state.hands_done == 0:
        state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
    p = state.current_player
    assert state.tally.foul[p] == 1  # random play fouled the first hand (this deal)
    v = state.view(p)
    current = foul_risk(v, F.turn_key(v))
    # the fouled first hand plus the second hand's foul risk, over the 2 hands
    assert OFCAdvisor(game).stat_estimates(state, p)["foul"] == pytest.approx((1 + current) / 2)
