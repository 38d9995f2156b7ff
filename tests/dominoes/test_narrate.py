"""Domino table talk: tile plays named with the open number they go on, typed as ``3-5`` or
``5-3`` plus an end, draws named only for the drawer, and each deal's end explained."""
from __future__ import annotations

import io

import numpy as np

from parlor.agents.human import HumanAgent
from parlor.envs.dominoes.austrian.game import make_game as austrian
from parlor.envs.dominoes.buki.game import make_game as buki
from parlor.envs.dominoes.line import PASS
from parlor.envs.dominoes.pulle.game import make_game as pulle
from parlor.envs.engine.presenter import presenter_for
from tests.dominoes.helpers import BLOCK_LINE, BUKI_BLOCK_SEAT2, deck, pass_until_done, play
from tests.harness.narration import told

DRAW_2P = deck("0-1 7-8 2-4 2-5 2-6 2-7 2-8 3-4", "3-5 3-6 3-7 3-8 4-5 4-6 4-7 4-8", rest_first="2-3 0-4")


def test_plays_name_the_tile_and_end_and_a_tile_and_end_word_picks_one() -> None:
    game = austrian(mode="draw", num_players=2)
    state = game.new_state(np.random.default_rng(0), [DRAW_2P])
    assert presenter_for(game).move_name(state.view(0), play("0-1")) == "play 0-1 as the first tile"
    assert told(game, state, play("0-1")) == ["leads 0-1"] * 2
    assert told(game, state, PASS) == ["draws 2 tiles from the stock (no 0 or 1)",
                                       "draws 0-4 2-3 from the stock (no 0 or 1)"]  # in hand order
    view = state.view(1)
    assert presenter_for(game).move_name(view, play("0-4", 0)) == "play 0-4 on the left end (on the open 0)"
    human = HumanAgent(game, io.StringIO(), io.StringIO())
    for typed in ("4-0", "0-4 left", "[0|4] l", "play 0-4"):
        assert human.parse(typed, [play("0-4", 0)], view) == (play("0-4", 0), ""), typed
    assert told(game, state, play("0-4", 0)) == ["plays 0-4 on the left end (on the open 0)"] * 2


def test_a_blocked_buki_deal_names_the_fewest_pips_and_the_payouts() -> None:
    game = buki()
    state = game.new_state(np.random.default_rng(0), [BUKI_BLOCK_SEAT2])
    assert told(game, state, game.bet_id(2))[0] == "bets 2"
    for a in (BLOCK_LINE[0], game.bet_id(3), BLOCK_LINE[1], game.bet_id(4), BLOCK_LINE[2]):
        state.apply(a)
    assert presenter_for(game).explain(state.view(0)) == ""
    pass_until_done(state)
    assert presenter_for(game).explain(state.view(0)).splitlines() == [
        "deal 1/8: the line blocked (nobody could play): P2 has the fewest pips, 26",
        "  pips left: P0 63, P1 49, P2 26, P3 35",
        "  paid: P0 -1.5, P1 -2, P2 +7.5, P3 -4",
    ]


def test_a_won_pulle_deal_counts_the_pips_onto_the_running_totals() -> None:
    game = pulle()
    state = game.new_state(np.random.default_rng(3))
    rng = np.random.default_rng(3)
    while state.view(0).last_deal is None:
        legal = np.flatnonzero(state.legal_mask())
        state.apply(int(legal[rng.integers(legal.size)]))
    view = state.view(0)
    lines = presenter_for(game).explain(view).splitlines()
    assert lines[0].startswith("deal 1/") and lines[1].startswith("  pips left: ")
    assert lines[-1] == "  running totals now: " + ", ".join(
        f"P{s} total {t}{' (out)' if view.out[s] else ''}" for s, t in enumerate(view.totals)) \
        + "; a total of 101 or more sits out"  # the seat notes of the text and picture
    assert [int(x) for x in lines[1].split(":")[1].replace(",", "").split()[1::2]] == list(view.last_deal.pips)
