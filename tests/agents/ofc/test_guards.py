"""The outlook's action guards (agents.ofc.guards: foul, opening_foul, foul_cap), read off the
``features=True`` block; the endgame guards are in test_endgame."""
from __future__ import annotations

import numpy as np

from parlor.agents.ofc.advisor import OFCAdvisor
from parlor.agents.ofc.guards import in_opening, planned_foul
from parlor.envs.ofc.game import make_game
from parlor.envs.ofc_outlook import features as F


def test_guarded_mask_drops_actions_riskier_than_the_planners_choice() -> None:
    game = make_game(variant="pineapple", features=True)
    advisor = OFCAdvisor(game)
    obs = np.zeros(game.observation_shape, dtype=np.float32)
    block = obs[-4 * F.OUTLOOK:].reshape(4, F.OUTLOOK)  # a view: writes land in obs
    for action, (foul, value) in {1: (0.25, 0.5), 2: (0.5, 0.625), 3: (0.125, 0.25)}.items():
        block[action] = [1.0, foul, 0, 0, 0, value, 1.0]
    legal = np.array([False, True, True, True])
    # the planner's choice (bottom, value 0.625) fouls in 50%: nothing is riskier
    assert advisor.guarded_mask(obs, legal, {"foul": 0.0}).tolist() == [False, True, True, True]
    block[1, 5] = 0.75  # now the middle (25%) is the plan: the bottom (50%) is dropped
    assert advisor.guarded_mask(obs, legal, {"foul": 0.0}).tolist() == [False, True, False, True]
    assert advisor.guarded_mask(obs, legal, {"foul": 0.25}).tolist() == [False, True, True, True]  # within tolerance
    block[:] = 0.0  # no outlook (a Fantasyland turn): every legal action stays
    assert advisor.guarded_mask(obs, legal, {"foul": 0.0}).tolist() == legal.tolist()


def test_guarded_mask_opening_tolerance_applies_while_the_first_five_cards_are_placed() -> None:
    game = make_game(variant="pineapple", features=True)
    advisor = OFCAdvisor(game)
    obs = np.zeros(game.observation_shape, dtype=np.float32)
    features = F.block_of(obs, 2)  # a view: writes land in obs
    block = obs[-4 * F.OUTLOOK:].reshape(4, F.OUTLOOK)
    block[1] = [1.0, 0.0, 0, 0, 0, 0.75, 1.0]   # the plan: middle, never fouls
    block[2] = [1.0, 0.25, 0, 0, 0, 0.5, 0.5]   # bottom: fouls in 25%
    legal = np.array([False, True, True, False])
    guard = {"foul": 0.5, "opening_foul": 0.0}
    features[F.FREE_SLOTS] = 10 / 13            # third card of the opening turn
    assert in_opening(features)
    assert advisor.guarded_mask(obs, legal, guard).tolist() == [False, True, False, False]
    assert advisor.guarded_mask(obs, legal, {"opening_foul": 0.0}).tolist() == [False, True, False, False]
    features[F.FREE_SLOTS] = 8 / 13             # a later turn: the general tolerance
    assert not in_opening(features)
    assert advisor.guarded_mask(obs, legal, guard).tolist() == [False, True, True, False]
    assert advisor.guarded_mask(obs, legal, {"opening_foul": 0.0}).tolist() == legal.tolist()  # no tolerance


def test_guarded_mask_foul_cap_is_a_ceiling_above_the_planners_choice() -> None:
    game = make_game(variant="pineapple", features=True)
    advisor = OFCAdvisor(game)
    obs = np.zeros(game.observation_shape, dtype=np.float32)
    block = obs[-4 * F.OUTLOOK:].reshape(4, F.OUTLOOK)
    block[0] = [1.0, 0.5, 0, 0, 0, 0.25, 0.1]   # top: fouls in 50%
    block[1] = [1.0, 0.25, 0, 0, 0, 0.75, 1.0]  # the plan: middle, 25%
    block[2] = [1.0, 0.375, 0, 0, 0, 0.5, 0.5]  # bottom: 37.5%
    legal = np.array([True, True, True, False])
    assert advisor.guarded_mask(obs, legal, {"foul_cap": 0.4}).tolist() == [False, True, True, False]
    # a ceiling under the plan's own risk keeps nothing riskier than the plan
    assert advisor.guarded_mask(obs, legal, {"foul_cap": 0.1}).tolist() == [False, True, False, False]
    # with a tolerance too, the tighter of the two bounds decides
    assert advisor.guarded_mask(obs, legal, {"foul_cap": 0.6, "foul": 0.125}).tolist() == [False, True, True, False]
    assert advisor.guarded_mask(obs, legal, {"foul_cap": 0.3, "foul": 0.5}).tolist() == [False, True, False, False]


def test_guarded_mask_always_keeps_the_planners_choice() -> None:
    game = make_game(variant="pineapple", features=True)
    advisor = OFCAdvisor(game)
    state = game.new_state(np.random.default_rng(6))
    rng = np.random.default_rng(7)
    while not state.is_terminal():
        p = state.current_player
        obs, legal = game.observe(state, p), state.legal_mask().astype(bool)
        kept = advisor.guarded_mask(obs, legal, {"foul": 0.0})
        assert kept.any() and not (kept & ~legal).any()
        block = obs[-4 * F.OUTLOOK:].reshape(4, F.OUTLOOK)
        if block[:, 0].any():
            assert kept[int(np.argmax(np.where(block[:, 0] > 0, block[:, 5], -1)))]
        state.apply(int(rng.choice(np.flatnonzero(legal))))


def test_planned_foul_is_the_foul_rate_of_the_highest_value_action() -> None:
    block = np.zeros(4 * F.OUTLOOK)
    assert planned_foul(block) is None  # no outlook (no pending card, or Fantasyland)
    for action, (foul, value) in {1: (0.25, 0.5), 2: (0.75, 0.625), 3: (0.0, 0.25)}.items():
        block[action * F.OUTLOOK:(action + 1) * F.OUTLOOK] = [1.0, foul, 0, 0, 0, value, 1.0]
    assert planned_foul(block) == 0.75  # the bottom has the highest value, fouls or not
    block[2 * F.OUTLOOK] = 0.0  # no longer available: the middle is the plan
    assert planned_foul(block) == 0.25


def test_in_opening_follows_the_seats_own_board() -> None:
    game = make_game(variant="pineapple", features=True)
    state = game.new_state(np.random.default_rng(3))
    rng = np.random.default_rng(4)
    seen = set()
    while not state.is_terminal():
        p = state.current_player
        placed = sum(len(row) for row in state.view(p).own_rows)
        opening = in_opening(F.block_of(game.observe(state, p), game.config.num_players))
        assert opening == (placed < 5)
        seen.add(opening)
        state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
    assert seen == {True, False}
