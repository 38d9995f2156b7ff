"""A deterministic guarded policy's choice judged lazily (agents.ofc.guards.first_kept):
always the first action of its order that the full guarded mask keeps, while most
decisions stop before every action is judged."""
from __future__ import annotations

import numpy as np
import pytest

from parlor.agents.ofc import guards
from parlor.agents.ofc.advisor import OFCAdvisor
from parlor.agents.registry import make_agent
from parlor.envs.ofc.game import make_game
from tests.tiers import first_share

GUARDS = (
    {"endgame_foul": 0.0, "midgame_foul": 0.02},   # the shipped safe policy's
    {"midgame_foul": 0.1},
    {"endgame_foul": 0.05, "foul": 0.0},           # after an outlook guard
)


def decisions(game, seed: int):
    """(observation, legal mask, view) at every regular decision of a randomly played hand."""
    rng = np.random.default_rng(seed)
    state = game.new_state(np.random.default_rng(seed))
    while not state.is_terminal():
        p = state.current_player
        legal = state.legal_mask()
        yield game.observe(state, p), legal, state.view(p)
        state.apply(int(rng.choice(np.flatnonzero(legal))))


@pytest.mark.parametrize("guard", GUARDS, ids=lambda g: ",".join(g))
def test_first_kept_is_the_first_action_of_the_order_the_guarded_mask_keeps(guard, monkeypatch) -> None:
    game = make_game(variant="pineapple", features=True)
    lazy, full = OFCAdvisor(game), OFCAdvisor(game)  # each with its own judge and memo
    full_masks = []
    real = guards.guarded_mask
    monkeypatch.setattr(guards, "guarded_mask", lambda *a: full_masks.append(1) or real(*a))
    rng = np.random.default_rng(7)
    early = fallback = 0
    for seed in range(3):
        for obs, legal, view in decisions(game, seed):
            actions = np.flatnonzero(legal)
            for order in (actions, actions[::-1], rng.permutation(actions)):
                kept = real(obs, legal, guard, view, 2, full.judge)
                before = len(full_masks)
                assert lazy.first_kept(obs, legal, guard, view, list(order)) == next(a for a in order if kept[a])
                judged = guards.free_after_turn(view) in (0, 1, 2, 3, 4, 6) and not view.fantasyland[view.player]
                if judged:
                    early += len(full_masks) == before
                    fallback += len(full_masks) > before
    assert early >= 10 and fallback >= 1  # both ways of deciding are exercised


# make test: the first hand (34 decisions, 2.5 CPU-s); make test-all: both (the second judges 3x longer)
@pytest.mark.parametrize("hands", first_share(1))
def test_a_guarded_deterministic_policy_plays_as_the_argmax_of_its_guarded_probabilities(hands: int | None) -> None:
    game = make_game(variant="pineapple", features=True)
    lazy = make_agent("ppo:agents/pretrained/ofc_pineapple_safe.zip", game)
    full = make_agent("ppo:agents/pretrained/ofc_pineapple_safe.zip", game)
    assert lazy.guard == {"endgame_foul": 0.0, "midgame_foul": 0.02}
    played = 0
    for seed in range(2 if hands is None else hands):
        for obs, legal, view in decisions(game, 100 + seed):
            if full.advisor.solved_action(view) is None:
                assert lazy.act(obs, legal, view) == int(np.argmax(full.probabilities(obs, legal, view)))
                played += 1
    assert played >= 20
