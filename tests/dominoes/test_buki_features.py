"""Buki's optional feature block (option ``features``), checked on a hand-worked position."""
from __future__ import annotations

import math

import numpy as np
import pytest

from parlor.envs.dominoes.buki import features as bf
from parlor.envs.dominoes.buki.game import make_game
from parlor.envs.dominoes.line import TILES
from parlor.envs.engine.game import ConfigError
from tests.dominoes.helpers import BLOCK_LINE, BUKI_BLOCK_SEAT2, play

BASE = 342   # core 294 + Buki tail 48: the block starts here


def new(**options):
    game = make_game(**options)
    return game, game.new_state(np.random.default_rng(0), [game.parse_deck(BUKI_BLOCK_SEAT2)])


def block(game, state, seat):
    obs = game.observe(state, seat)
    assert np.array_equal(obs, game.encode(state.view(seat))), "fast path and encode(view) differ"
    return obs[BASE:]


def test_features_off_by_default_and_validated():
    plain, state = new()
    assert plain.observation_shape == (342,)
    feat, fstate = new(features=True)
    assert feat.observation_shape == (342 + bf.FEATURES,) == (518,)
    # the basic part is byte-identical with the block switched on
    assert np.array_equal(plain.observe(state, 1), feat.observe(fstate, 1)[:BASE])
    with pytest.raises(ConfigError, match="features"):
        make_game(features="yes")


def test_features_hand_worked_leader_position():
    """Seat 1 (hand 0-2 5-8 4-6 3-6 4-5 2-6) leads the first deal; he puts the bet off."""
    game, state = new(features=True)
    f = block(game, state, 1)
    assert f[9:12].tolist() == [0, 0, 1]               # bet phase of turn 1: two deferrals left
    state.apply(game.LATER)
    f = block(game, state, 1)
    assert f[5:9].tolist() == [1, 0, 0, 0]             # he leads
    assert f[9:12].tolist() == [0, 1, 0]               # next decision (turn 2) may still defer once
    assert f[12] == 0.0                                # no bet yet
    assert f[13] == pytest.approx(6 / 7) and f[14] == pytest.approx(6 / 7) and f[15] == pytest.approx(0.5)
    assert f[16] == pytest.approx(7 / 9)               # numbers 0 2 3 4 5 6 8
    assert f[17] == pytest.approx(51 / 70)             # 2 + 13 + 10 + 9 + 9 + 8 pips
    assert f[18] == pytest.approx(6 / 7)               # empty line: every tile may lead
    assert f[19] == 0.0 and f[20:24].tolist() == [0, 0, 0, 0]
    assert f[24] == pytest.approx(4 / 9)               # 2, 4, 5, 6 held twice or more
    assert f[25] == pytest.approx(3 / 7)               # sum own(x)^2 / 8 = (1+4+4+1+4+9+1) / 8
    assert f[27] == 0.0 and f[28] == 1.0               # nothing on the line; first deal
    # heuristic play scores: weight + 1.5 x numbers kept + 2 per new end I can follow
    scores = {"4-6": 24.5, "5-8": 24.0, "4-5": 23.5, "2-6": 22.5, "3-6": 20.0, "0-2": 13.0}
    for tile, s in scores.items():
        a = play(tile)
        assert f[bf.SCORE + a] == pytest.approx(s / 40)
        assert f[bf.SCORE + a + 1] == 0.0              # the first tile only takes end 0
    assert np.count_nonzero(f[bf.SCORE:bf.BEST]) == 6
    assert np.flatnonzero(f[bf.BEST:]).tolist() == [play("4-6")]
    # the bet economics are those of the estimate: edge 3.5 p - 1, break-even 2/7
    p = float(f[0])
    assert p == pytest.approx(bf.win_estimate(state.view(1)))
    assert f[1] == pytest.approx(0.5 + 0.5 * max(-1, min(1, 3.5 * p - 1)))
    assert f[2] == float(p > 2 / 7)
    assert f[3] == pytest.approx(0.5 + 2 * (3.5 * p - 1) / 30)
    assert f[4] == pytest.approx(0.5 + 6 * (3.5 * p - 1) / 30)


def test_features_win_estimate_is_the_documented_logistic_model():
    game, state = new(features=True)
    view = state.view(1)
    raw = bf.raw_stats(view)
    expected = np.zeros(bf.N_RAW)
    expected[0] = 1                                    # leader
    expected[6] = 1                                    # banker (seat 0) is third after seat 1
    expected[7:11] = [6, 6, 6, 6]
    expected[11] = 6
    expected[12], expected[13], expected[14], expected[15] = 7, 5.1, 6, 3
    expected[19] = bf.heuristic_win_chance(view, 1)
    expected[20], expected[21], expected[22] = 1, 4, 3
    assert raw == pytest.approx(expected)
    w = bf.WIN_WEIGHTS[0]
    assert bf.win_estimate(view) == pytest.approx(1 / (1 + math.exp(-(raw @ w[:-1] + w[-1]))))


def test_features_after_plays_bets_and_for_the_banker():
    game, state = new(features=True)
    state.apply(game.bet_id(6)); state.apply(BLOCK_LINE[0])   # seat 1 bets 6 and leads 0-2
    state.apply(game.LATER)                                    # seat 2 waits, then must play
    f1 = block(game, state, 1)
    assert f1[12] == 1.0 and f1[9:12].tolist() == [0, 0, 0]    # bet placed: nothing left to decide
    f2 = block(game, state, 2)
    assert f2[5:9].tolist() == [0, 1, 0, 0]                    # seat 2 plays second
    # ends 0 | 2; seat 2 (2-3 1-2 1-3 1-4 2-4 3-5) fits 2-3, 1-2, 2-4 on the right end
    assert f2[18] == pytest.approx(3 / 7)
    assert np.flatnonzero(f2[bf.SCORE:bf.BEST]).tolist() == sorted(play(t, 1) for t in ("2-3", "1-2", "2-4"))
    # unseen by seat 2 that fit 0 or 2: all 0 and 2 tiles but the 0-2 on the line and his three
    unseen_fit = sum(1 for t in state.view(2).unseen if set(TILES.tiles[t]) & {0, 2})
    assert unseen_fit == 8 + 8 - 1 - 1 - 3 and f2[19] == pytest.approx(unseen_fit / 16)
    assert f1[bf.SCORE:].sum() == 0.0                          # not seat 1's turn: no play scores
    f0 = block(game, state, 0)
    assert f0[9:13].tolist() == [0, 0, 0, 0]                   # the banker never bets
    assert f0[5:9].tolist() == [0, 0, 0, 1]                    # banker plays 4th after seat 1


def test_features_see_only_the_observers_view():
    game, state = new(features=True)
    state.apply(game.LATER); state.apply(BLOCK_LINE[0])
    for seed in range(5):
        other = state.determinize(2, np.random.default_rng(seed))
        assert np.array_equal(game.observe(other, 2), game.observe(state, 2))


def test_deadline_bettor_waits_then_bets_by_the_win_estimate():
    from parlor.agents.dominoes.heuristic import DeadlineBettor

    game, state = new(features=True)
    agent = DeadlineBettor(game, seed=0)
    view = state.view(1)
    assert agent.act(None, state.legal_mask(), view) == game.LATER      # turn 1 of 3: wait
    # a previous winner must bet before his 1st turn: no waiting, the estimate decides
    due = view.__class__(**{**{f: getattr(view, f) for f in view.__dataclass_fields__},
                            "must_bet_first": (False, True, False, False), "bet_due": True})
    mask = np.zeros(game.num_actions, dtype=bool)
    mask[game.bet_id(2):game.bet_id(6) + 1] = True
    expected = game.bet_id(6) if bf.win_estimate(due) > 2 / 7 else game.bet_id(2)
    assert agent.act(None, mask, due) == expected
