"""``parlor bench --ofc-misplays``: the expert's decisions beside a larger budget's, with value gaps."""
from __future__ import annotations

import copy
import dataclasses
import json

import numpy as np
import pytest

from parlor import envs
from parlor.agents.episodes import play_until, seat_chooser
from parlor.cli import main
from parlor.envs.engine.cards import parse_cards
from parlor.envs.ofc_outlook.rollouts import plans_of
from parlor.training.benchmarks import ofc_misplays as study
from parlor.training.benchmarks.ofc_misplay_kinds import describe, draws, kind, made, street, upper_row_ahead

SMALL = study.StudyConfig((("variant", "pineapple"),), deals=1, seed=5, default=2, big=8, batches=4)


@pytest.fixture(scope="module")
def small():
    positions = study.collect_positions(SMALL)
    return positions, study.compare(SMALL, positions)


def decision_states(config: study.StudyConfig, deal: int) -> dict:
    """Deal ``deal`` replayed as the study plays it: a copy of the state at each seat's
    first card of a turn, keyed as positions are."""
    game = envs.make_game("ofc_v0", **dict(config.options))
    sink: list = []
    agents = [study._Recorder(game, study.position_seed(config.seed, deal, p), config.default, sink)
              for p in range(game.num_players)]
    states = {}

    def note(state) -> bool:
        view = state.view(state.current_player)
        if state.pend_pos == 0:
            held = sum(map(len, view.own_rows)) + len(view.discards)
            states[(deal, view.hand_index, view.player, held)] = copy.deepcopy(state)
        return False

    state = game.new_state(np.random.default_rng([config.seed, deal]))
    play_until(state, seat_chooser(game, agents), stop=note)
    return states


def test_positions_are_the_real_decision_points_and_both_choices_legal(small) -> None:
    positions, results = small
    states = decision_states(SMALL, 0)
    assert len(positions) == 10   # heads-up Pineapple: 5 turns a seat, each with a choice here
    for p, c in zip(positions, results):
        assert c.key == p.key and p.candidates == len(plans_of(p.view).dests) > 1
        state = states[p.key]
        assert state.view(p.view.player) == p.view
        for choice in (c.default, c.big):
            replay = copy.deepcopy(state)
            for action in choice:
                assert replay.legal_mask()[action], f"{choice} is not legal at {p.key}"
                replay.apply(action)
    assert [c.street for c in results if c.key[2] == 0] == ["opening", "middle", "middle", "before last", "last"]


def test_gap_is_zero_where_the_choices_agree(small) -> None:
    positions, results = small
    assert any(c.default != c.big for c in results), "budgets 2 and 8 should disagree somewhere"
    for c in results:
        if c.default == c.big:
            assert (c.gap, c.se, c.kind, c.values) == (0.0, 0.0, "same", None)
        else:   # (two placements may score alike in every world: the same ranks, suits that cannot matter)
            assert np.isfinite(c.se) and c.kind != "same" and c.gap == pytest.approx(c.values[1] - c.values[0])
    # a position whose played choice is the larger budget's: no gap, whatever the budgets
    p = positions[0]
    big = study.compare_one(envs.make_game("ofc_v0", variant="pineapple"), p, SMALL).big
    agreed = study.compare_one(envs.make_game("ofc_v0", variant="pineapple"),
                               dataclasses.replace(p, played=big), SMALL)
    assert (agreed.gap, agreed.se) == (0.0, 0.0)


def test_value_gap_scores_both_choices_on_common_worlds(small) -> None:
    positions, _ = small
    game = envs.make_game("ofc_v0", variant="pineapple")
    view = positions[3].view
    a, b = plans_of(view).dests[:2]
    same = study.value_gap(game, view, a, a, 8, 4, seed=1)
    assert same[0] == 0.0 and same[1] == 0.0
    forward, backward = study.value_gap(game, view, a, b, 8, 4, seed=1), study.value_gap(game, view, b, a, 8, 4, seed=1)
    assert forward[0] == -backward[0] and forward[1] == backward[1] and forward[2] == backward[2][::-1]


def test_same_seed_same_study_and_another_seed_differs(small) -> None:
    positions, results = small
    again = study.collect_positions(SMALL)
    assert [(p.view, p.played) for p in again] == [(p.view, p.played) for p in positions]
    assert study.compare(SMALL, again) == results
    other = study.collect_positions(dataclasses.replace(SMALL, seed=6))
    assert [p.view for p in other] != [p.view for p in positions]


def test_results_are_saved_as_they_come_and_resumed(small, tmp_path, monkeypatch) -> None:
    positions, results = small
    out = tmp_path / "study.json"
    assert study.compare(SMALL, positions[:3], out) == results[:3]
    assert len(json.loads(out.read_text())["comparisons"]) == 3
    calls = []
    real = study.compare_one
    monkeypatch.setattr(study, "compare_one", lambda *a: calls.append(a[1].key) or real(*a))
    assert study.compare(SMALL, positions, out) == results
    assert calls == [p.key for p in positions[3:]]   # the saved three are read back, not redone
    calls.clear()   # a study of more deals reads the same file
    assert study.compare(dataclasses.replace(SMALL, deals=2), positions[:2], out) == results[:2] and not calls
    other = tmp_path / "other.json"   # a new comparison saved beside others' rows keeps them
    study.compare(SMALL, positions[5:7], other)
    assert study.compare(SMALL, positions[:1], other) == results[:1]
    assert [tuple(r["key"]) for r in json.loads(other.read_text())["comparisons"]] == [
        p.key for p in (positions[0], *positions[5:7])]
    with pytest.raises(SystemExit, match="another study"):
        study.compare(dataclasses.replace(SMALL, big=16), positions, out)


def test_summary_counts_misplays_by_street_and_kind(small) -> None:
    _, results = small
    by_street, by_kind = study.summary(results)
    assert by_street[0].decisions == len(results) and sum(r.decisions for r in by_street[1:]) == len(results)
    differ = [c for c in results if c.default != c.big]
    assert by_street[0].rate == pytest.approx(len(differ) / len(results))
    assert by_street[0].gap == pytest.approx(sum(c.gap for c in results) / len(results))
    assert sum(r.decisions for r in by_kind) == len(differ)
    assert by_street[0].clear == sum(c.gap > 2 * c.se for c in differ) == sum(r.clear for r in by_kind)
    turns = study.by_turn(results)   # heads-up Pineapple: the opening is 5 turns to go, the last 1
    assert [r.label for r in turns] == ["5 turns to go", "4 turns to go", "3 turns to go", "2 turns to go", "1 turn to go"]
    assert [r.decisions for r in turns] == [2] * 5 and [c.turns_left for c in results[::2]] == [5, 4, 3, 2, 1]
    middle = [r for r in by_street if r.label == "middle"][0]
    assert middle.gap == pytest.approx((turns[1].gap + turns[2].gap) / 2)
    lines = study.report(SMALL, results)
    assert any(line.startswith("opening") for line in lines) and any(line.startswith("4 turns to go") for line in lines)


def view_with(rows: str, pending: str, owed: int):
    """The first decision's View of a heads-up Pineapple deal, with our rows and cards replaced."""
    game = envs.make_game("ofc_v0", variant="pineapple")
    state = game.new_state(np.random.default_rng(0))
    view = state.view(state.current_player)
    board = tuple(tuple(parse_cards(r)) for r in rows.split("/"))
    others = tuple(board if q == view.player else ((), (), ()) for q in range(2))
    return dataclasses.replace(view, rows=others, pending=tuple(parse_cards(pending)), discards_owed=owed)


def test_kind_rules_on_drawn_boards() -> None:
    assert made(parse_cards("Ks Kd 4c")) == (1, 11) and made(parse_cards("4s 4d 4c 9h 9s")) == (4, 2, 7)
    assert made(parse_cards("As Kd")) == (0,)
    assert upper_row_ahead([parse_cards("Qs Qd"), parse_cards("Jc Jd 3s"), []])      # top QQ over middle JJ
    assert not upper_row_ahead([parse_cards("Qs"), parse_cards("Jc Jd 3s"), parse_cards("Kc Kd")])
    assert draws([[], parse_cards("5h 6h 7c"), parse_cards("2s 9s Ks Qs")]) == 2   # straight draw, flush draw
    assert draws([[], parse_cards("5h 6h 6c"), parse_cards("As 2d 4c")]) == 1       # the wheel's ace counts low
    view = view_with("5c/8d 9d/Tc Jc", "Qh 4d 3s", owed=1)
    assert street(view) == "middle"
    assert kind(view, (0, 1, 3), (3, 1, 2)) == "Fantasyland top, default chases"
    assert kind(view, (1, 2, 3), (1, 3, 2)) == "discard"
    assert kind(view, (3, 1, 2), (3, 2, 1)) == "draw, default keeps more"   # 4d to the diamonds: a flush draw
    assert kind(view, (2, 2, 3), (2, 2, 3)) == "same"
    assert describe(view.pending, (0, 1, 3)) == "top Q♥; middle 4♦; discard 3♠"
    pair = view_with("9c/5d 5s/Tc Td Th", "9h 4d 3s", owed=1)
    assert kind(pair, (0, 1, 3), (1, 0, 3)) == "foul risk, default takes it"     # 99 on top over the middle's 55


def test_bench_option_runs_a_small_study_and_rejects_bad_input(capsys, tmp_path) -> None:
    out = tmp_path / "study.json"
    assert main(["bench", "--ofc-misplays", "1", "--budgets", "2,8", "--batches", "2", "--seed", "5",
                 "--worst", "1", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "10 decisions collected" in text and "all decisions" in text and "(you)" in text
    assert len(json.loads(out.read_text())["comparisons"]) == 10
    with pytest.raises(SystemExit, match="a larger one"):
        main(["bench", "--ofc-misplays", "1", "--budgets", "128"])
    with pytest.raises(SystemExit, match="must exceed the default"):
        main(["bench", "--ofc-misplays", "1", "--budgets", "128,64"])
    with pytest.raises(SystemExit, match="deals must be a positive integer"):
        main(["bench", "--ofc-misplays", "0"])
