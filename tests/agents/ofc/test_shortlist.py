"""A network's shortlist of a turn's placements (agents.ofc.shortlist): the beam search
against brute force, the placed view against the env's own, the expert among a shortlist, and
the expert whose opening a shortlist stands in for."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from parlor import envs
from parlor.agents.episodes import decide
from parlor.agents.ofc.expert import DEFAULT_SAMPLES, OpeningBudgetExpert
from parlor.agents.ofc.heuristic import OFCHeuristic
from parlor.agents.ofc.shortlist import log_softmax, network_shortlist, placed
from parlor.agents.registry import make_agent
from parlor.envs.ofc_outlook.rollouts import plans_of


def fake_prior(views):
    """Logits that depend on the whole view (as a network's do), from a hash of it."""
    out = []
    for v in views:
        key = hash((v.pending, v.own_rows, v.discards, v.discards_owed)) % (2**32)
        out.append(np.random.default_rng(key).normal(size=4) * 2)
    return np.array(out)


def brute_force(view, dests):
    """Each candidate's log-probability: the sum over its cards of the masked log-softmax."""
    scores = []
    for d in dests:
        v, total = view, 0.0
        for depth, dest in enumerate(d):
            legal = sorted({c[depth] for c in dests if tuple(c[:depth]) == tuple(d[:depth])})
            total += float(log_softmax(fake_prior([v])[0][legal])[legal.index(dest)])
            v = placed(v, dest)
        scores.append(total)
    return np.array(scores)


def turn_views():
    """Views at the first card of regular turns of a heads-up Pineapple hand (the opening's 232
    candidates, then three-card turns with a discard)."""
    game = envs.make_game("ofc_v0", variant="pineapple")
    agent, state, views = OFCHeuristic(game, seed=2), game.new_state(np.random.default_rng(11)), []
    while not state.is_terminal():
        p = state.current_player
        view = state.view(p)
        if len(view.pending) == 5 or (len(view.pending) == 3 and view.discards_owed == 1):  # a turn's first card
            views.append(view)
        state.apply(decide(agent, game, state, p))
    return views


@pytest.mark.parametrize("index", [0, 2, 5])
def test_a_wide_beam_finds_the_most_probable_placements(index: int) -> None:
    view = turn_views()[index]
    dests = [tuple(d) for d in plans_of(view).dests]
    scores = brute_force(view, dests)
    best = sorted(range(len(dests)), key=lambda i: (-scores[i], dests[i]))
    # wide enough for every partial placement: exact
    assert network_shortlist(view, dests, fake_prior, 128)[:10] == best[:10]
    narrow = network_shortlist(view, dests, fake_prior, 3)
    assert len(narrow) == 3 and len(set(narrow)) == 3
    assert narrow[0] == best[0] or scores[narrow[0]] <= scores[best[0]]


def test_size_one_is_the_greedy_path() -> None:
    view = turn_views()[0]
    dests = [tuple(d) for d in plans_of(view).dests]
    v, path = view, []
    for depth in range(len(view.pending)):
        legal = sorted({d[depth] for d in dests if d[:depth] == tuple(path)})
        path.append(max(legal, key=lambda a: fake_prior([v])[0][a]))
        v = placed(v, path[-1])
    assert dests[network_shortlist(view, dests, fake_prior, 1)[0]] == tuple(path)
    with pytest.raises(ValueError, match="at least one"):
        network_shortlist(view, dests, fake_prior, 0)


def test_placed_views_are_the_envs_own() -> None:
    """The view after placing a card equals the env's view after the same action, so the
    network reads the observation it would read in play."""
    game = envs.make_game("ofc_v0", variant="pineapple", features=True)
    agent, state = OFCHeuristic(game, seed=4), game.new_state(np.random.default_rng(6))
    checked = 0
    while not state.is_terminal() and checked < 30:
        p = state.current_player
        view = state.view(p)
        action = decide(agent, game, state, p)
        state.apply(action)
        if view.pending and state.current_player == p and not view.fantasyland[p]:
            after = state.view(p)
            assert placed(view, action) == after
            assert np.array_equal(game.encode(placed(view, action)), game.observe(state, p))
            checked += 1
    assert checked >= 10


def test_the_expert_plans_among_a_shortlist() -> None:
    """The expert with a prior plays the best of the shortlist by its own scoring; a shortlist
    that holds every candidate of a short turn leaves its play as it was."""
    game = envs.make_game("ofc_v0", variant="pineapple")
    views = turn_views()
    for view in views[2:5]:  # three-card turns: at most 27 candidates, no screening
        dests = [tuple(d) for d in plans_of(view).dests]
        alone, guided = make_agent("expert:4", game, seed=9), make_agent("expert:4", game, seed=9)
        guided.prior, guided.shortlist_size = fake_prior, 64
        assert guided.plan_regular_turn(view) == alone.plan_regular_turn(view)
        guided = make_agent("expert:4", game, seed=9)
        guided.prior, guided.shortlist_size = fake_prior, 2
        short = network_shortlist(view, dests, fake_prior, 2)
        chosen = tuple(guided.plan_regular_turn(view))
        assert chosen in {dests[i] for i in short}
        values = make_agent("expert:4", game, seed=9).values(view, short)[1]
        assert chosen == dests[int(np.argmax(values))]
        assert np.isinf(values[[i for i in range(len(dests)) if i not in short]]).all()
    for size, view in itertools.product((1, 5), views[:1]):  # the opening: 232 candidates
        guided = make_agent("expert:4", game, seed=9)
        guided.prior, guided.shortlist_size = fake_prior, size
        chosen = tuple(guided.plan_regular_turn(view))
        assert chosen in {tuple(plans_of(view).dests[i]) for i in network_shortlist(
            view, [tuple(d) for d in plans_of(view).dests], fake_prior, size)}


def test_the_opening_budget_expert_opens_as_the_expert_and_then_plays_at_eight() -> None:
    """The agent of the opening ceiling: the default expert's opening (same seed, same
    placement), then expert:8's budget on the later turns."""
    game = envs.make_game("ofc_v0", variant="pineapple")
    opening, later = turn_views()[0], turn_views()[2]
    split = OpeningBudgetExpert(game, seed=3)
    assert split.plan_regular_turn(opening) == make_agent("expert", game, seed=3).plan_regular_turn(opening)
    assert split.samples == DEFAULT_SAMPLES
    split.plan_regular_turn(later)
    assert split.samples == 8
