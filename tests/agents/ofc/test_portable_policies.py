"""Policy files (format 2) across OFC's portable options (issue 26): a single-hand policy
warm-starts a 6-hand network and plays a multi-hand match, its Fantasyland hands solved, and
the match's record re-simulates; a checkpoint resumes only the options it was written with."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from parlor.agents.ofc.heuristic import OFCHeuristic
from parlor.agents.policy import (
    PolicyAgent,
    PolicyMismatchError,
    architecture_for,
    load_weights_into,
    read_checkpoint,
    save_policy,
)
from parlor.envs.ofc.game import make_game
from parlor.envs.records import Record, record_episode, replay
from tests.agents.ofc.test_solved_decisions import ACES_ON_TOP, OTHER
from tests.agents.policy_files import tiny_policy
from tests.ofc.helpers import hand_script, new_state, run

pytest.importorskip("torch")

PINEAPPLE = {"variant": "pineapple", "features": True}


def test_a_single_hand_policy_warm_starts_a_six_hand_network_but_not_another_variant(tmp_path) -> None:
    import torch

    single, six = make_game(**PINEAPPLE), make_game(**PINEAPPLE, num_hands=6, fl_cards="progressive")
    path = tiny_policy(tmp_path / "single.zip", single, hidden=(16,))
    network = architecture_for(six, (16,), "tanh").build()
    header = load_weights_into(network, path, six)   # --init of the stage-2 config
    assert header["options"]["num_hands"] == 1
    saved = architecture_for(single, (16,), "tanh").build()
    load_weights_into(saved, path, single)
    assert all(torch.equal(a, b) for a, b in zip(network.state_dict().values(), saved.state_dict().values()))
    original = make_game(variant="original", features=True, num_hands=6)
    with pytest.raises(PolicyMismatchError, match="option variant: trained with 'pineapple'"):
        load_weights_into(architecture_for(original, (16,), "tanh").build(), path, original)


def test_a_checkpoint_resumes_only_the_options_it_was_written_with(tmp_path) -> None:
    single, six = make_game(**PINEAPPLE), make_game(**PINEAPPLE, num_hands=6)
    policy = architecture_for(single, (8,), "tanh").build()
    model = SimpleNamespace(policy=policy, num_timesteps=128, _n_updates=3)   # what save_policy reads of a MaskablePPO
    path = save_policy(model, tmp_path / "latest.zip", single, checkpoint=True)
    assert read_checkpoint(path, single).header["checkpoint"] == {"n_updates": 3}
    with pytest.raises(PolicyMismatchError, match="option num_hands: trained with 1, loading into 6"):
        read_checkpoint(path, six)


def test_a_single_hand_policy_plays_a_match_with_its_fantasyland_hand_solved_and_the_record_replays(tmp_path) -> None:
    # hand 0 is scripted (seat 0 makes aces on top: Fantasyland), hands 1-2 are played by a
    # single-hand policy file (seat 0) and the heuristic (seat 1) on a stacked deck
    deck, script = hand_script({0: ACES_ON_TOP, 1: OTHER}, 2)
    fantasyland_deck = tuple(int(c) for c in np.random.default_rng(3).permutation(52))
    game, state = new_state([deck, fantasyland_deck], num_hands=3)
    path = tiny_policy(tmp_path / "single.zip", make_game())
    agents = [PolicyAgent.from_file(path, game), OFCHeuristic(game, seed=1)]
    run(state, script)
    assert state.in_fl == [True, False]
    dealt = state.view(0).pending
    while not state.terminal:
        seat = state.current_player
        state.apply(agents[seat].act(game.observe(state, seat), state.legal_mask().astype(np.int8), state.view(seat)))
    stats = state.stats()
    assert stats["fl_hands"][0] == pytest.approx(1 / 3) and stats["regular_hands"][1] == 1.0

    record = record_episode(game, state, agents=["policy", "heuristic"])
    seat0 = [step.action for step in record.steps if step.seat == 0]
    # after its 13 placements of hand 0, seat 0 places its Fantasyland hand first in hand 1
    assert seat0[13:13 + len(dealt)] == _solved_actions(dealt)   # every placement is the solver's
    again = Record.from_json(record.to_json())
    final = replay(again)   # re-simulated from the JSON alone
    assert final.stats() == stats and list(again.rewards) == list(state.totals)


def _solved_actions(dealt) -> list[int]:
    from parlor.agents.ofc.fantasyland import DEFAULT_STAY_VALUE, solve

    board = solve(dealt, "trips_fh_quads", DEFAULT_STAY_VALUE)
    return [board.destination(card) for card in dealt]
