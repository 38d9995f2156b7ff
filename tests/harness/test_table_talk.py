"""Table talk of every env and preset (what ``parlor play`` tells a human): each legal action
has its own label, typing a label back (with cards as ``K♣`` or as ``Kc``) picks that action,
every move is told to every seat in words, and a finished hand or deal is explained, also by
copies of the state (pickle, deepcopy, clone, serialize_state) made right after it paid."""
from __future__ import annotations

import copy
import io
import pickle

import numpy as np
import pytest

from parlor.agents.human import HumanAgent
from parlor.envs.engine.presenter import presenter_for
from tests.harness.cases import CASES, EnvCase
from tests.tiers import first_share

ids = [c.id for c in CASES]
EPISODES, MAX_DECISIONS = 2, 150
TYPED_EVERY = 7  # the typed-back round trip on every 7th decision (it parses every label per label)
ASCII = str.maketrans("♣♦♥♠", "cdhs")


@pytest.mark.parametrize("episodes", first_share(1))  # make test: the first episode of each case
@pytest.mark.parametrize("case", CASES, ids=ids)
def test_labels_are_unique_and_typed_back_moves_are_told_and_hands_explained(case: EnvCase, episodes: int | None) -> None:
    game = case.make_raw().game
    presenter = presenter_for(game)
    human = HumanAgent(game, io.StringIO(), io.StringIO())
    rng = np.random.default_rng(5)
    explained = ended = False
    for episode in range(EPISODES if episodes is None else episodes):
        state = game.new_state(np.random.default_rng(episode))
        views = [state.view(q) for q in range(game.num_players)]
        decisions = 0
        while not (state.is_terminal() or state.is_truncated()) and decisions < MAX_DECISIONS:
            p = state.current_player
            legal = [int(a) for a in np.flatnonzero(state.legal_mask())]
            labels = {a: presenter.move_name(views[p], a) for a in legal}
            assert len(set(labels.values())) == len(labels), f"two legal actions share a label: {labels}"
            for a, label in labels.items() if decisions % TYPED_EVERY == 0 else ():
                assert human.parse(label, legal, views[p]) == (a, ""), label
                assert human.parse(label.translate(ASCII), legal, views[p]) == (a, ""), label
            action = legal[int(rng.integers(len(legal)))]
            state.apply(action)
            decisions += 1
            after = [state.view(q) for q in range(game.num_players)]
            for q in range(game.num_players):
                told = presenter.describe_move(views[q], after[q], p, action)
                assert isinstance(told, str) and told.strip(), f"move {action} of P{p} told to P{q} as {told!r}"
                text = presenter.explain(after[q])
                assert isinstance(text, str)
                explained |= bool(text)
            views = after
        ended |= state.is_terminal()  # long games may stop at MAX_DECISIONS, unfinished
    if ended:
        assert explained, "an episode ended but explain() never said how a hand or deal ended"


def copies(game, state) -> list:
    return [pickle.loads(pickle.dumps(state)), copy.deepcopy(state), state.clone(),
            game.deserialize_state(game.serialize_state(state))]


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_copies_made_after_a_hand_ended_keep_its_public_result(case: EnvCase) -> None:
    # once a hand or deal ends, its public result (OFC's showdown, the domino games' last deal,
    # Tonk's hand result) is in every view and explain() reads it from there
    game = case.make_raw().game
    presenter = presenter_for(game)
    state = game.new_state(np.random.default_rng(11))
    rng = np.random.default_rng(11)
    told, checked = "", 0
    while not (state.is_terminal() or state.is_truncated()) and checked < 3:
        legal = np.flatnonzero(state.legal_mask())
        state.apply(int(legal[rng.integers(legal.size)]))
        text = presenter.explain(state.view(0))
        if text == told:
            continue
        told, checked = text, checked + 1
        for twin in copies(game, state):
            for q in range(game.num_players):
                assert twin.view(q) == state.view(q)
                assert presenter.explain(twin.view(q)) == presenter.explain(state.view(q))
    assert checked or state.is_truncated(), "an episode ended but explain() never said how"
