"""Tonk table talk: moves named by their cards (a stock draw only for its drawer), hits with the
spread they join, and each hand's end explained (how play stopped, counts, stakes)."""
from __future__ import annotations

from parlor.envs.engine.presenter import presenter_for
from parlor.envs.tonk.encode import DRAW_STOCK, DROP, END_LAYING
from tests.harness.narration import told
from tests.tonk.helpers import discard, hit, lay, new, turn

P1_41 = "8h Jc Qd 7s 6s"
P2_43 = "Kc Ks Th 9h 4h"


def test_a_stock_draw_names_the_card_only_to_its_drawer_and_lays_hits_discards_to_all() -> None:
    game, state = new(["5c 5d 5h 9s Ts", P1_41, P2_43], start="Qh", stock="Js 5s 2d")
    assert told(game, state, DRAW_STOCK) == ["draws J♠ from the stock", "draws from the stock", "draws from the stock"]
    assert told(game, state, lay("5c 5d 5h")) == ["lays the set 5♣ 5♦ 5♥"] * 3
    assert told(game, state, END_LAYING) == ["ends laying"] * 3
    assert told(game, state, discard("Ts")) == ["discards T♠"] * 3
    state.apply(DRAW_STOCK)  # P1 draws 5♠, which fits P0's set
    slot = state.view(1).spreads[0].slot
    assert state.legal_mask()[hit("5s", slot)]
    assert presenter_for(game).move_name(state.view(1), hit("5s", slot)) == f"hit 5♠ on spread {slot} (P0's set 5♣ 5♦ 5♥)"
    assert told(game, state, hit("5s", slot)) == ["hits 5♠ on P0's set 5♣ 5♦ 5♥"] * 3


def test_a_caught_drop_is_explained_with_every_count_and_the_stakes() -> None:
    game, state = new(["9c 9d 2s 3s Ah", "Ad 2c 2d 3c 3d", P2_43], start="Qh")
    assert presenter_for(game).explain(state.view(0)) == ""
    assert told(game, state, DROP)[2] == "drops (all hands are counted)"
    assert presenter_for(game).explain(state.view(2)).splitlines() == [
        "hand 1/1: P0 dropped with 24 and was caught: P1 has the lowest count, 11; the dropper pays each "
        "lower count, the others pay P1",
        "  counts: P0 24, P1 11, P2 43",
        "  stakes (side pot included): P0 -1, P1 +2, P2 -1",
    ]


def test_a_tonk_out_and_a_won_drop_say_who_was_paid_what() -> None:
    game, state = new(["5c 5d 5h 9s Ts", P1_41, P2_43], start="Qh", stock="Js")
    turn(state, plays=[lay("5c 5d 5h"), lay("9s Ts Js")])
    assert presenter_for(game).explain(state.view(1)).startswith(
        "hand 1/1: P0 tonked out (emptied the hand before discarding): P0 is paid 2 by each")
    game, state = new(["Ac Ad 2c 2d 3c", P1_41, P2_43], start="Qh")
    state.apply(DROP)
    assert presenter_for(game).explain(state.view(0)).startswith("hand 1/1: P0 dropped with the lowest count, 9: paid 1 by each")
