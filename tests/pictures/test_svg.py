"""Pictures of the table: every game's ``render_svg(view)`` draws exactly its View.

Checks over seeded random play of every env and preset (start, middle, end): the picture
is well-formed SVG of one fixed size per game configuration, everything lies on the
canvas, the seat to act carries the one "to act" badge, and what is hidden from the
viewing seat is drawn as backs or counts (never as faces). The card and tile labels are
the notation the deck parsers read.
"""
from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET

import pytest

from parlor import envs
from parlor.envs.dominoes.line import TILES
from parlor.envs.engine import svg
from parlor.envs.engine.cards import NUM_IDS, parse_card
from parlor.envs.engine.presenter import svg_renderer
from parlor.envs.tonk.view import TableSpread
from parlor.envs.washizu_poker.deck import HAND_SIZE
from tests.harness.cases import CASES, EnvCase
from tests.pictures.play import episode_views

NS = "{http://www.w3.org/2000/svg}"
PICTURE_CASES = [c for c in CASES if c.env_name != "kuhn_test"]


def parse(picture: str) -> ET.Element:
    root = ET.fromstring(picture)
    assert root.tag == f"{NS}svg"
    return root


def shapes(root: ET.Element, kind: str) -> list[ET.Element]:
    """Rects of class ``kind`` drawn on the table (the legend's samples excluded)."""
    legend = {id(e) for g in root.iter(f"{NS}g") if g.get("class") == "legend" for e in g.iter()}
    return [e for e in root.iter(f"{NS}rect")
            if id(e) not in legend and (not kind or kind in (e.get("class") or "").split())]


def texts(root: ET.Element) -> list[str]:
    return [e.text or "" for e in root.iter(f"{NS}text")]


def check_on_canvas(root: ET.Element) -> tuple[float, float]:
    """Every shape and text anchor lies on the canvas; returns its (width, height)."""
    width, height = float(root.get("width")), float(root.get("height"))
    for rect in shapes(root, ""):
        x, y = float(rect.get("x")), float(rect.get("y"))
        assert 0 <= x and x + float(rect.get("width")) <= width + 0.5, rect.attrib
        assert 0 <= y and y + float(rect.get("height")) <= height + 0.5, rect.attrib
    for t in root.iter(f"{NS}text"):
        assert 0 <= float(t.get("x")) <= width and 0 <= float(t.get("y")) <= height, t.text
    return width, height


@pytest.mark.parametrize("case", PICTURE_CASES, ids=lambda c: c.id)
def test_picture_has_one_size_keeps_to_the_canvas_and_marks_the_seat_to_act(case: EnvCase) -> None:
    draw = svg_renderer(case.make_raw().game)
    sizes = set()
    for view in episode_views(case.env_name, case.options, seed=1):
        root = parse(draw(view))
        sizes.add(check_on_canvas(root))
        badges = shapes(root, "to-act")
        assert len(badges) == (0 if view.current_player is None else 1)
        assert f"view of P{view.player}" in "".join(texts(root))
    assert len(sizes) == 1, f"{case.id}: picture sizes {sizes} change within an episode"


@pytest.mark.parametrize("c", range(NUM_IDS))
def test_card_label_is_the_notation_the_parser_reads(c: int) -> None:
    root = parse(svg.document(60, 80, [svg.card(0, 0, c)], "card"))
    label, *rest = texts(root)
    if label.startswith("X"):
        assert parse_card(label) == c
    else:
        copy = "*" if label.endswith("*") else ""
        assert parse_card(label.rstrip("*") + rest[0] + copy) == c


def test_washizu_cards_jokers_and_backs_are_drawn_differently() -> None:
    plain, washizu, joker = svg.card(0, 0, 51), svg.card(0, 0, 51, washizu=True), svg.card(0, 0, 104)
    assert len({plain.split(">")[0], washizu.split(">")[0], joker.split(">")[0]}) == 3
    assert "W" in texts(parse(svg.document(60, 80, [washizu], "w")))
    assert 'class="card-back"' in svg.card_back(0, 0)


def test_pips_cover_every_number_of_the_sets_and_reject_more() -> None:
    for n in range(TILES.max_pip + 1):
        assert svg.pips(0, 0, n, 20).count("<circle") == n
    with pytest.raises(ValueError, match="0..9 pips"):
        svg.pips(0, 0, 10, 20)


def _views(name: str, **options):
    return episode_views(name, options, seed=2)


def test_ofc_picture_draws_placed_cards_free_places_pending_and_own_discards() -> None:
    draw = svg_renderer(envs.make_game("ofc_v0", variant="pineapple"))
    for view in _views("ofc_v0", variant="pineapple"):
        root = parse(draw(view))
        placed = sum(len(row) for q in range(view.num_players) if not view.hidden[q] for row in view.rows[q])
        assert len(shapes(root, "card")) == placed + len(view.pending) + len(view.discards)
        assert len(shapes(root, "free")) == sum(13 - sum(map(len, view.rows[q])) for q in range(view.num_players)
                                                if not view.hidden[q])
        # the discards sit under the right-hand board: their label names whose they are
        assert (f"P{view.player}'s discards" in draw(view)) == bool(view.discards)


def test_ofc_fantasyland_board_of_another_seat_is_face_down() -> None:
    # the view of a seat whose opponent plays Fantasyland: that board is hidden (rows empty)
    view = _views("ofc_v0", num_players=3)[1]
    hidden = tuple(q != view.player for q in range(3))
    rows = tuple(board if q == view.player else ((), (), ()) for q, board in enumerate(view.rows))
    view = dataclasses.replace(view, hidden=hidden, rows=rows, fantasyland=hidden, fl_dealt=tuple(14 * h for h in hidden))
    root = parse(svg_renderer(envs.make_game("ofc_v0", num_players=3))(view))
    assert len(shapes(root, "card-back")) == 13 * 2
    assert texts(root).count("Fantasyland: face down") == 2
    assert "score +0, last hand +0, FL 14 cards" in texts(root)


def test_washizu_picture_shows_own_hand_washizu_cards_and_backs_for_the_rest() -> None:
    draw = svg_renderer(envs.make_game("washizu_poker_v0"))
    for view in _views("washizu_poker_v0"):
        root = parse(draw(view))
        others = [s for s in range(view.num_players) if s != view.player]
        hidden = sum(HAND_SIZE - len(view.visible[s]) for s in others if view.alive[s]) if view.phase != "over" else 0
        assert len(shapes(root, "card-back")) == hidden
        washizu_in_view = sum(c in view.washizu for c in view.hand) + sum(len(view.visible[s]) for s in others)
        washizu_in_view += len(view.left_view) + sum(c in view.washizu for c in view.my_discards)
        if view.last_result is not None:
            washizu_in_view += sum(c in view.washizu for h in view.last_result.shown if h for c in h)
        assert len(shapes(root, "washizu")) == washizu_in_view
        assert f"pot {view.pot}" in texts(root)


def test_tonk_picture_shows_own_hand_others_as_backs_spreads_and_the_discard_top() -> None:
    """Other hands are backs while the episode runs; at its end the rules have counted every
    hand face up, so the last picture shows them (issue 36)."""
    draw = svg_renderer(envs.make_game("tonk_v0"))
    views = _views("tonk_v0")
    assert views[-1].phase == "over" and views[0].phase != "over"
    for view in views:
        root = parse(draw(view))
        others = sum(view.hand_sizes[s] for s in range(view.num_players) if s != view.player)
        over = view.phase == "over"
        assert len(shapes(root, "card-back")) == (0 if over else others) + (1 if view.stock_size else 0)
        faces = len(view.hand) + sum(len(sp.cards) for sp in view.spreads) + len(view.out_of_play)
        assert len(shapes(root, "card")) == faces + (view.top_discard is not None) + (others if over else 0)
        if over:
            assert "every hand is shown" in " ".join(texts(root))
            shown = [c for s in range(view.num_players) if s != view.player for c in view.last_result.hands[s]]
            assert len(shown) == others


def test_tonk_many_spreads_shrink_to_stay_on_the_table() -> None:
    view = _views("tonk_v0", num_players=5, hand_size=9)[0]
    spreads = [TableSpread(0, 1, "run", tuple(r * 4 + 3 for r in range(13)))]
    spreads += [TableSpread(k, k % 5, "set", (k - 1, k - 1 + 12, k - 1 + 24)) for k in range(1, 13)]
    root = parse(svg_renderer(envs.make_game("tonk_v0"))(dataclasses.replace(view, spreads=tuple(spreads))))
    assert len(shapes(root, "card")) == len(view.hand) + 13 + 36 + (view.top_discard is not None)
    check_on_canvas(root)


@pytest.mark.parametrize("name", ["buki_v0", "pulle_v0", "austrian_dominoes_v0"])
def test_domino_picture_draws_the_line_own_tiles_labelled_and_others_as_backs(name: str) -> None:
    draw = svg_renderer(envs.make_game(name))
    for view in _views(name):
        root = parse(draw(view))
        assert len(shapes(root, "tile")) == len(view.line) + len(view.hand)
        assert len(shapes(root, "end")) == min(2, len(view.line))
        backs = sum(view.hand_counts[s] for s in range(view.num_players) if s != view.player and view.active[s])
        assert len(shapes(root, "tile-back")) == backs
        labels = [t for t in texts(root) if t.count("-") == 1 and t.replace("-", "").isdigit()]
        assert TILES.parse(labels) == tuple(view.hand)


def test_buffalo_bill_picture_writes_scratched_lines_and_totals() -> None:
    draw = svg_renderer(envs.make_game("buffalo_bill_v0", num_players=3))
    view = _views("buffalo_bill_v0", num_players=3)[-1]
    root = parse(draw(view))
    words = texts(root)
    assert words.count("✗ 0") == sum(v == 0 for row in view.written for v in row)
    assert all(str(t) in words for t in view.totals)
    assert len(shapes(root, "card")) == sum(len(h) for h in view.hands)


def test_grid_sets_pictures_side_by_side_in_rows_of_equal_cells() -> None:
    a = svg.document(300, 100, [svg.text(5, 20, "a")], "first")
    b = svg.document(200, 50, [svg.text(5, 20, "b")], "second")
    c = svg.document(300, 100, [svg.text(5, 20, "c")], "third")
    three = parse(svg.grid([a, b, c], "all", columns=2, gap=8))
    assert (three.get("width"), three.get("height")) == ("608", "208")  # 2 cells of 300 x 100 a row, 2 rows
    groups = three.findall(f"{NS}g")
    assert [g.get("transform") for g in groups] == ["translate(0,0)", "translate(308,0)", "translate(0,108)"]
    assert [g.find(f"{NS}svg").find(f"{NS}title").text for g in groups] == ["first", "second", "third"]
    column = parse(svg.grid([a, b], "one column", columns=1, gap=8))
    assert (column.get("width"), column.get("height")) == ("300", "208")
    with pytest.raises(ValueError, match="pictures made by document"):
        svg.grid(["<svg/>"], "bad")
    with pytest.raises(ValueError, match="columns must be >= 1"):
        svg.grid([a], "bad", columns=0)
