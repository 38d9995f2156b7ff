"""Observation layouts as named pieces (``parlor.envs.engine.layout``) and the games that
declare theirs with it."""
from __future__ import annotations

import numpy as np
import pytest

from parlor import envs
from parlor.envs.engine.layout import Layout
from parlor.envs.ofc import encode as ofc_encode
from parlor.envs.tonk import encode as tonk_encode
from parlor.envs.washizu_poker import encode as washizu_encode


def test_offsets_follow_from_the_sizes_in_order() -> None:
    lay = Layout([("hand", 52), ("flag", 1), ("seats", 0), ("tail", 7)])
    assert [lay.start(n) for n in lay] == [0, 52, 53, 53] and lay.size == 60
    assert lay["tail"] == slice(53, 60) and lay.end("hand") == 52 and lay.width("tail") == 7
    assert list(lay.slices) == ["hand", "flag", "seats", "tail"] and len(lay) == 4
    assert "| `[52:53]` | flag |" in lay.table()


@pytest.mark.parametrize("pieces, error", [
    ([("a", 1), ("a", 2)], "declared twice"),
    ([("a", -1)], "sizes are 0 or more"),
    ([("a", 1.0)], "a \\(name, size\\) pair"),
    ([["a", 1]], "a \\(name, size\\) pair"),
])
def test_bad_pieces_are_refused_naming_the_piece(pieces, error) -> None:
    with pytest.raises((ValueError, TypeError), match=error):
        Layout(pieces)


def test_an_unknown_piece_names_the_pieces() -> None:
    with pytest.raises(KeyError, match="no layout piece 'x'; pieces: a, b"):
        Layout([("a", 1), ("b", 2)]).start("x")


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_games_layouts_cover_their_observations(n: int) -> None:
    ofc = envs.make_game("ofc_v0", num_players=n)
    assert ofc_encode.Layout(n).size == ofc.observation_shape[0]
    assert list(ofc_encode.Layout(n).slices)[-1] == "start_seat"
    assert tonk_encode.observation_layout(n).size == envs.make_game("tonk_v0", num_players=n).observation_shape[0]
    assert washizu_encode.Layout(n).size == envs.make_game("washizu_poker_v0", num_players=n).observation_shape[0]
    # the per-seat block of Tonk: its named offsets are the pieces of SEAT
    assert tonk_encode.S_SPADE == tonk_encode.SEAT.start("spade_rank") and tonk_encode.SEAT_W == 124


def test_tonk_state_keeps_no_observation_buffer_its_observer_does() -> None:
    game = envs.make_game("tonk_v0")
    state = game.new_state(np.random.default_rng(0))
    arrays = [k for k, v in vars(state).items() if isinstance(v, np.ndarray) and v.dtype == np.float32]
    assert arrays == [] and state.observer.buf.size == tonk_encode.buffer_layout(game.num_players).size
    rng = np.random.default_rng(1)
    while not (state.is_terminal() or state.is_truncated()):
        for p in range(game.num_players):
            assert np.array_equal(game.observe(state, p), game.encode(state.view(p)))
        state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))


@pytest.mark.parametrize("n", [1, 2, 4])
def test_buffalo_bills_observation_seat_row_buffer_and_features_are_named_pieces(n: int) -> None:
    game = envs.make_game("buffalo_bill_v0", num_players=n, features=True)
    lay = game.layout
    assert isinstance(lay, Layout) and isinstance(lay.seat, Layout) and isinstance(lay.buffer, Layout)
    assert list(lay) == ["round", "stock", "discards", "hand", "to_act", "first", "seats"]
    assert lay.size + game.features.layout.size == game.observation_shape[0] and lay.width("seats") == n * lay.seat.size
    assert isinstance(game.features.layout, Layout) and game.feature_offset == lay.size
    # the state's buffer: the observation's public pieces in place, then every seat's own hand,
    # the seat rows and the turn one-hots; its observer keeps exactly that many floats
    assert [lay.buffer[name] for name in ("round", "stock", "discards")] == [lay[name] for name in ("round", "stock", "discards")]
    assert lay.buffer.width("hands") == n * lay.width("hand") and lay.buffer.width("rows") == lay.width("seats")
    state = game.new_state(np.random.default_rng(0))
    assert state.observer.buffer.size == lay.buffer.size
