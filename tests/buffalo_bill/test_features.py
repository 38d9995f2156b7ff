"""The optional feature block (option ``features``): layout, hand-worked values,
the sampled exchange estimates against brute force, and the default observation
left unchanged."""
from __future__ import annotations

import numpy as np
import pytest

from parlor.envs import buffalo_bill_v0
from parlor.envs.buffalo_bill.encode import exchange_action, score_action
from parlor.envs.buffalo_bill.features import GAIN_SCALE, PAR_SCALE, line_pars
from parlor.envs.buffalo_bill.game import make_game
from parlor.envs.engine.cards import parse_cards
from parlor.envs.engine.game import ConfigError

STANDARD = ("straight flush", "four of a kind", "full house", "flush", "straight",
            "three of a kind", "two pair", "one pair", "high card")


def start(top: str, **options):
    game = make_game(num_players=1, reward="score", features=True, **options)
    head = parse_cards(top)
    deck = head + tuple(c for c in game.deck if c not in head)
    return game, game.new_state(np.random.default_rng(0), [deck])


def block(game, state, player=0):
    obs = game.observe(state, player)
    np.testing.assert_array_equal(obs, game.encode(state.view(player)))
    f = obs[game.feature_offset:]
    return {name: f[s] for name, s in game.features.layout.slices.items()}


def gain(g):
    return np.clip(0.5 + np.asarray(g, dtype=float) / GAIN_SCALE, 0.0, 1.0)


def test_option_is_checked_and_default_observation_is_unchanged():
    with pytest.raises(ConfigError, match="features"):
        make_game(features="yes")
    plain, feat = make_game(num_players=1), make_game(num_players=1, features=True)
    assert plain.observation_shape == (plain.layout.size,)
    assert feat.observation_shape == (plain.layout.size + 4 * 31 + 5 * 9 + 8,) == (plain.layout.size + 177,)
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    a, b = plain.new_state(rng_a), feat.new_state(rng_b)
    np.testing.assert_array_equal(plain.observe(a, 0), feat.observe(b, 0)[: plain.layout.size])
    env = buffalo_bill_v0.env(**buffalo_bill_v0.PRESETS["solitaire_features"])
    env.reset(seed=1)
    assert env.observe("player_0")["observation"].shape == feat.observation_shape


def test_hand_worked_full_house_lines_now():
    # A A A K K: full house 53, trips 33, two pair 22 + 20, pair 22, high card 53; no flush/straight
    game, state = start("As Ah Ad Ks Kh")
    f = block(game, state)
    now = np.array([0, 0, 53, 0, 0, 33, 42, 22, 53])
    par = PAR_SCALE * line_pars(game)
    np.testing.assert_allclose(f["open"], 1.0)
    np.testing.assert_allclose(f["now"], now / 54, rtol=1e-6)
    np.testing.assert_allclose(f["now_gain"], gain(now - par), rtol=1e-6)
    sc = f["scalars"]
    assert sc[0] == pytest.approx(gain((now - par).max()))  # standing pat: the full house line
    assert sc[2] == pytest.approx(1.0) and sc[3] == pytest.approx(1.0)  # 9 of 9 rounds, 12 of 12 chips
    assert sc[4] == pytest.approx(12 / 9 / 4)  # chips per round left / 4
    assert sc[5] == 0 and sc[6] == 1 and sc[7] == 0  # first exchange free and allowed, none made yet
    # keeping the three aces guarantees trips of aces whatever comes: potential >= 33
    assert f["potential"][5] * 54 == pytest.approx(33.0, abs=1e-4)
    # preferences: writing the full house is the best action (1.0); the others in exp((gain - best) / 4)
    gains_now = now - par
    assert f["line_pref"][2] == pytest.approx(1.0)
    np.testing.assert_allclose(f["line_pref"], np.exp((gains_now - gains_now.max()) / 4), rtol=1e-5)
    assert f["ex_pref"].max() < 1.0


def test_written_lines_close_and_the_chip_flags_follow_the_exchanges():
    game, state = start("As Ah Ad Ks Kh")
    state.apply(score_action(2))  # full house 53 in round 0
    f = block(game, state)
    assert f["open"].tolist() == [1, 1, 0, 1, 1, 1, 1, 1, 1]
    assert f["now"][2] == 0 and f["now_gain"][2] == 0 and f["potential"][2] == 0
    state.apply(exchange_action([0]))  # the free exchange
    f = block(game, state)
    assert f["scalars"][5] == 1 and f["scalars"][6] == 1  # next costs a chip; 12 left
    assert f["scalars"][7] == pytest.approx(1 / 13)


def test_exchange_estimates_match_brute_force_over_every_draw():
    # four aces and a deuce: swapping the deuce (position 4) keeps the quad whatever comes
    game, state = start("As Ah Ad Ac 2c")
    f = block(game, state)
    par = PAR_SCALE * line_pars(game)
    hand = state.hands[0]
    unseen = [c for c in game.deck if c not in hand]
    for positions in ([4], [0]):
        gains, bests = [], []
        for c in unseen:
            new = list(hand)
            new[positions[0]] = c
            values = np.array(game.evaluator.values(new))
            gains.append((values - par).max())
            bests.append(values.max())
        a = exchange_action(positions)
        assert f["ex_gain"][a] == pytest.approx(gain(np.mean(gains)), abs=0.04)  # 64 samples of 47 cards
        assert f["ex_best"][a] * 54 == pytest.approx(np.mean(bests), abs=1.5)
    assert f["ex_best"][exchange_action([4])] > f["ex_best"][exchange_action([0])]
    # keeping the quad: four of a kind is 44 in every draw
    assert f["potential"][1] * 54 == pytest.approx(44.0, abs=1e-4)


def test_block_ignores_the_stock_order_and_is_deterministic():
    game, state = start("2c 7d 9h Js Kd")
    f1 = game.observe(state, 0)[game.feature_offset:]
    other = state.determinize(0, np.random.default_rng(99))
    f2 = game.observe(other, 0)[game.feature_offset:]
    np.testing.assert_array_equal(f1, f2)
    assert (f1 >= 0).all() and (f1 <= 1).all()


def test_argmax_agent_follows_the_preferences_and_plays_legal_moves():
    from parlor.agents.buffalo_bill.heuristic import FeatureArgmaxAgent

    game, state = start("As Ah Ad Ks Kh")
    agent = FeatureArgmaxAgent(game, seed=0)
    assert agent.act(game.observe(state, 0), state.legal_mask(), state.view(0)) == score_action(2)  # full house
    plain = make_game(num_players=1)  # works without the option too
    agent = FeatureArgmaxAgent(plain, seed=0)
    state = plain.new_state(np.random.default_rng(5))
    while not state.is_terminal():
        mask = state.legal_mask()
        action = agent.act(plain.observe(state, 0), mask, state.view(0))
        assert mask[action]
        state.apply(action)
    assert state.totals[0] > 0
