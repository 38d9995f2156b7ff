"""Endgame foul probabilities (agents.ofc.endgame) against a hand-worked case and brute force,
the ``endgame_foul`` and ``midgame_foul`` guards and the ``foul:endgame`` estimator of the OFC advisor."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from parlor.agents.advisors import advisor_for, check_guard
from parlor.agents.episodes import play_episode
from parlor.agents.ofc.advisor import OFCAdvisor
from parlor.agents.ofc.endgame import (
    EndgameJudge,
    action_risks,
    foul_after_four,
    foul_after_six,
    foul_after_two,
    free_after_turn,
    free_slots,
    midgame_action_risks,
    next_turn_draws,
)
from parlor.agents.ofc.heuristic import OFCHeuristic
from parlor.envs.engine.cards import parse_cards
from parlor.envs.engine.game import ConfigError
from parlor.envs.ofc.encode import NUM_ACTIONS
from parlor.envs.ofc.game import make_game
from parlor.envs.ofc.scoring import evaluate_board
from parlor.envs.ofc_outlook.features import turn_key
from parlor.envs.ofc_outlook.rollouts import assignments, place, turn_candidates


def board(top: str, mid: str, bot: str) -> list[list[int]]:
    return [list(parse_cards(top)), list(parse_cards(mid)), list(parse_cards(bot))]


def brute_two(rows, unseen) -> float:
    """Every deal of 3 unseen cards; fouled unless some ordered pair of it fills the slots cleanly."""
    slots = free_slots(rows)
    fouled = 0
    deals = list(itertools.combinations(unseen, 3))
    for deal in deals:
        ok = False
        for a, b in itertools.permutations(deal, 2):
            full = [list(r) for r in rows]
            full[slots[0]].append(a)
            full[slots[1]].append(b)
            if not evaluate_board(*full).fouled:
                ok = True
                break
        fouled += not ok
    return fouled / len(deals)


def test_hand_worked_two_slot_case() -> None:
    # Top QQ; middle K K 4 3 + one slot; bottom 7 7 8 9 + one slot; unseen 9d 4h 3s 2d.
    # The bottom beats the middle's kings only with the 9d (nines and sevens), and then the
    # middle must stay one pair (2d), not KK44 / KK33 (which beat nines up):
    #   {9d 4h 3s}: foul; {9d 4h 2d}: clean; {9d 3s 2d}: clean; {4h 3s 2d}: no 9: foul.
    rows = board("Qs Qh 2c", "Ks Kh 4c 3d", "7s 7h 8d 9c")
    unseen = np.array(sorted(parse_cards("9d 4h 3s 2d")), dtype=np.int64)
    assert foul_after_two(rows, unseen) == pytest.approx(0.5)
    assert brute_two(rows, list(unseen)) == pytest.approx(0.5)


def random_board(rng: np.random.Generator, free: int, same_row: bool | None = None):
    deck = [int(c) for c in rng.permutation(52)]
    positions = list(range(13))
    if same_row is True:
        start = int(rng.choice([0, 3, 8]))
        empty = set(range(start, start + free))
    else:
        empty = set(int(x) for x in rng.choice(positions, free, replace=False))
    rows, k = [[], [], []], 0
    for pos in positions:
        r = 0 if pos < 3 else 1 if pos < 8 else 2
        if pos not in empty:
            rows[r].append(deck[k])
            k += 1
    return rows, np.array(sorted(deck[k:k + 12]), dtype=np.int64)


@pytest.mark.parametrize("same_row", [False, True])
def test_two_slot_probability_equals_brute_force(same_row: bool) -> None:
    rng = np.random.default_rng(7 + same_row)
    nonzero = 0
    for _ in range(40):
        rows, unseen = random_board(rng, 2, same_row)
        exact = foul_after_two(rows, unseen)
        assert exact == pytest.approx(brute_two(rows, list(unseen)))
        nonzero += 0 < exact < 1
    assert nonzero >= 3  # the boards were not all trivially clean or fouled


def test_four_slot_estimate_is_the_best_placement_per_draw() -> None:
    rng = np.random.default_rng(3)
    for _ in range(6):
        rows, unseen = random_board(rng, 4)
        draws = next_turn_draws(len(unseen), 11, samples=5)
        room = [3 - len(rows[0]), 5 - len(rows[1]), 5 - len(rows[2])]
        expected = []
        for d in draws:
            cards = [int(c) for c in unseen[d]]
            rest = [int(c) for c in np.delete(unseen, d)]
            expected.append(min(brute_two(place(rows, cards, dest), rest) for dest in assignments(cards, room, 1)))
        assert foul_after_four(rows, unseen, draws) == pytest.approx(np.mean(expected))


def capped_agrees(p: float, exact: float, cap: float) -> bool:
    """A capped estimate says the right side of the cap: within it, an upper bound of the
    exact value; above it, a lower bound."""
    return exact <= p + 1e-12 <= cap + 1e-12 if exact <= cap + 1e-12 else cap < p <= exact + 1e-12


def test_four_slot_bound_and_enough_keep_the_right_side() -> None:
    rng = np.random.default_rng(4)
    for _ in range(8):
        rows, unseen = random_board(rng, 4)
        draws = next_turn_draws(len(unseen), 3, samples=6)
        exact = foul_after_four(rows, unseen, draws)
        for cap in (0.0, 0.05, 0.2):
            assert capped_agrees(foul_after_four(rows, unseen, draws, bound=cap), exact, cap)
            quick = foul_after_four(rows, unseen, draws, enough=cap)  # first placement within cap per draw
            assert quick >= exact - 1e-12


def test_six_slot_estimate_is_the_best_placement_per_draw_of_four_slot_estimates() -> None:
    rng = np.random.default_rng(6)
    nonzero = 0
    for _ in range(30):  # most random boards are clean under careful play: look until some are not
        if nonzero >= 4:
            break
        rows, unseen = random_board(rng, 6)
        draws = next_turn_draws(len(unseen), 2, samples=3)
        next_draws = next_turn_draws(len(unseen) - 3, 9, samples=2)
        room = [3 - len(rows[0]), 5 - len(rows[1]), 5 - len(rows[2])]
        expected = []
        for d in draws:
            cards = [int(c) for c in unseen[d]]
            rest = np.delete(unseen, d)
            expected.append(min(foul_after_four(place(rows, cards, dest), rest, next_draws)
                                for dest in assignments(cards, room, 1)))
        exact = foul_after_six(rows, unseen, draws, next_draws)
        assert exact == pytest.approx(np.mean(expected))
        nonzero += exact > 0
        for cap in (0.0, 0.1, 0.3):
            assert capped_agrees(foul_after_six(rows, unseen, draws, next_draws, cap=cap), exact, cap)
    assert nonzero >= 4


def test_bad_boards_raise() -> None:
    rows, unseen = random_board(np.random.default_rng(0), 4)
    with pytest.raises(ValueError, match="2 free slots"):
        foul_after_two(rows, unseen)
    rows, unseen = random_board(np.random.default_rng(0), 2)
    with pytest.raises(ValueError, match="4 free slots"):
        foul_after_four(rows, unseen, next_turn_draws(len(unseen), 0))
    with pytest.raises(ValueError, match="6 free slots"):
        foul_after_six(rows, unseen, next_turn_draws(len(unseen), 0), next_turn_draws(len(unseen) - 3, 1))


def pineapple_decisions(seed: int, features: bool = False) -> list:
    """(observation, legal mask, view) of seat 0 at each of its decisions in one
    heuristic-vs-heuristic Pineapple hand."""
    game = make_game(variant="pineapple", features=features)
    decisions = []

    class Recorder(OFCHeuristic):
        def act(self, observation, action_mask, view, sample_world=None):
            decisions.append((observation, np.asarray(action_mask, dtype=bool), view))
            return super().act(observation, action_mask, view, sample_world)

    play_episode(game, [Recorder(game, seed=1), OFCHeuristic(game, seed=2)], seed=seed)
    return decisions


def pineapple_views(seed: int) -> list:
    return [view for _, _, view in pineapple_decisions(seed)]


def judged_decisions(advisor, guard, seeds, risks_of):
    """(view, risks, mask of the judged actions) at each decision of seat 0 that
    ``risks_of`` judges (in heuristic hands of ``seeds``); a decision it does not judge
    must keep every action under ``guard``."""
    for seed in seeds:
        for v in pineapple_views(seed):
            risks = risks_of(v)
            legal = np.zeros(NUM_ACTIONS, dtype=bool)
            if risks is None:
                legal[:] = True
                assert advisor.guarded_mask(np.zeros(1), legal, guard, view=v).all()
                continue
            legal[list(risks)] = True
            yield v, risks, legal


def test_action_risks_per_turn() -> None:
    views = pineapple_views(5)
    risks = [action_risks(v, turn_key(v)) for v in views]
    free_after = [13 - sum(map(len, v.own_rows)) - (len(v.pending) - v.discards_owed) for v in views]
    for v, r, left in zip(views, risks, free_after):
        if left > 4:
            assert r is None
            continue
        assert r is not None and set(r) <= {0, 1, 2, 3}
        cands = turn_candidates(v)
        assert set(r) == {d[0] for d in cands}
        if left == 2:  # exact: the lowest brute-force probability of the plans starting with each action
            unseen = v.unseen_cards()
            for a, p in r.items():
                assert p == pytest.approx(min(brute_two(place(v.own_rows, v.pending, d), unseen)
                                              for d in cands if d[0] == a))
        if left == 0:
            assert all(p in (0.0, 1.0) for p in r.values())
    assert sum(r is not None for r in risks) == 9  # turn 3 (4 free), 4 (2 free), 5 (0 free): 3 cards each


def test_judge_memo_matches_fresh_computation_and_resets_per_turn() -> None:
    views = [v for v in pineapple_views(9) if v.pending and 13 - sum(map(len, v.own_rows)) <= 6]
    judge = EndgameJudge()
    for v in views:  # one shared judge over consecutive turns gives what a fresh one does
        assert action_risks(v, turn_key(v), judge) == action_risks(v, turn_key(v), EndgameJudge())


def test_endgame_guard_keeps_the_lowest_risk_and_drops_what_exceeds_the_tolerance() -> None:
    advisor = OFCAdvisor(make_game(variant="pineapple"))
    assert "endgame_foul" in advisor.guarded_stats
    narrowed = 0
    for v, risks, legal in judged_decisions(advisor, {"endgame_foul": 0.0}, range(6),
                                            lambda v: action_risks(v, turn_key(v))):
        kept = advisor.guarded_mask(np.zeros(1), legal, {"endgame_foul": 0.0}, view=v)
        lowest = min(risks.values())
        assert kept.any()
        assert {a for a in risks if kept[a]} == {a for a, p in risks.items() if p <= lowest + 1e-12}
        loose = advisor.guarded_mask(np.zeros(1), legal, {"endgame_foul": 1.0}, view=v)
        assert loose.tolist() == legal.tolist()
        narrowed += int(kept.sum() < legal.sum())
    assert narrowed >= 1


def test_endgame_guard_needs_the_view_and_pineapple() -> None:
    advisor = OFCAdvisor(make_game(variant="pineapple"))
    with pytest.raises(ValueError, match="needs the seat's view"):
        advisor.guarded_mask(np.zeros(1), np.ones(4, dtype=bool), {"endgame_foul": 0.0})
    with pytest.raises(ConfigError, match="cannot guard 'endgame_foul'"):
        check_guard(advisor_for(make_game(variant="original")), {"endgame_foul": 0.0}, "ofc_v0")


def test_endgame_guard_judges_what_the_outlook_guard_leaves() -> None:
    advisor = OFCAdvisor(make_game(variant="pineapple", features=True))
    both = {"foul": 0.0, "endgame_foul": 0.0}
    for seed in range(4):
        for obs, legal, view in pineapple_decisions(seed, features=True):
            outlook_only = advisor.guarded_mask(obs, legal, {"foul": 0.0}, view=view)
            kept = advisor.guarded_mask(obs, legal, both, view=view)
            assert kept.any() and not (kept & ~outlook_only).any()
            risks = action_risks(view, turn_key(view))
            if risks is not None:
                left = {a: p for a, p in risks.items() if outlook_only[a]}
                assert {a for a in left if kept[a]} == {a for a, p in left.items() if p <= min(left.values()) + 1e-12}


def test_endgame_foul_estimate_is_the_turns_lowest_risk_and_ends_at_the_real_foul() -> None:
    game = make_game(variant="pineapple", num_hands=2)
    advisor = OFCAdvisor(game)
    state = game.new_state(np.random.default_rng(12))
    rng = np.random.default_rng(5)
    judged = unjudged = 0
    while not state.is_terminal():
        p = state.current_player
        v = state.view(p)
        estimate = advisor.stat_estimates(state, p, ("foul:endgame",))["foul:endgame"]
        risks = action_risks(v, turn_key(v)) if v.pending else None
        if risks is None:
            assert estimate is None
            unjudged += 1
        else:  # the finished hands' fouls plus this hand's lowest risk, over the hands
            assert estimate == pytest.approx((state.tally.foul[p] + min(risks.values())) / 2)
            judged += 1
        state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
    assert judged >= 30 and unjudged >= 30
    for p in range(2):
        assert advisor.stat_estimates(state, p, ("foul:endgame", "foul")) == dict.fromkeys(
            ("foul:endgame", "foul"), state.stats()["foul"][p])
    with pytest.raises(ValueError, match="does not estimate 'foul:endgame'.*allowed values: foul"):
        original = make_game(variant="original")
        s = original.new_state(np.random.default_rng(0))
        OFCAdvisor(original).stat_estimates(s, s.current_player, ("foul:endgame",))


def test_midgame_risks_judge_only_the_turn_leaving_six_slots_and_say_the_side_of_the_cap() -> None:
    judged = 0
    for seed in (5, 8):
        for v in pineapple_views(seed):
            exact = midgame_action_risks(v, turn_key(v), 1.0)
            if free_after_turn(v) != 6:
                assert exact is None
                continue
            judged += 1
            cands = turn_candidates(v)
            assert set(exact) == {d[0] for d in cands}
            judge = EndgameJudge()
            for a, p in exact.items():  # the lowest over the plans starting with the action
                assert p == pytest.approx(min(judge.risk(place(v.own_rows, v.pending, d), v.unseen_cards(), turn_key(v))
                                              for d in cands if d[0] == a))
            shared = EndgameJudge()  # its memo serves later caps only from the known side of each
            for cap in (0.03, 0.0, 0.01, 1.0):
                capped = midgame_action_risks(v, turn_key(v), cap, shared)
                assert set(capped) == set(exact)
                assert all((capped[a] <= cap) == (exact[a] <= cap + 1e-12) for a in exact)
            assert capped == pytest.approx(exact)
    assert judged == 6  # the first three-card turn of two hands, 3 cards each


def test_midgame_guard_keeps_the_actions_with_a_plan_within_the_cap_or_else_the_lowest() -> None:
    advisor = OFCAdvisor(make_game(variant="pineapple"))
    assert "midgame_foul" in advisor.guarded_stats
    narrowed = fallback = 0
    for v, risks, legal in judged_decisions(advisor, {"midgame_foul": 0.0}, range(2),
                                            lambda v: midgame_action_risks(v, turn_key(v), 1.0)):
        kept = advisor.guarded_mask(np.zeros(1), legal, {"midgame_foul": 0.0}, view=v)
        within = {a for a, p in risks.items() if p == 0.0}
        lowest = min(risks.values())
        assert {a for a in risks if kept[a]} == (within or {a for a, p in risks.items() if p <= lowest + 1e-12})
        assert advisor.guarded_mask(np.zeros(1), legal, {"midgame_foul": 1.0}, view=v).tolist() == legal.tolist()
        narrowed += int(kept.sum() < legal.sum())
        if within and len(within) < len(risks):  # another guard left no action within the cap:
            legal[list(within)] = False          # the lowest of those it left stays
            kept = advisor.guarded_mask(np.zeros(1), legal, {"midgame_foul": 0.0}, view=v)
            lowest = min(p for a, p in risks.items() if legal[a])
            assert {a for a in risks if kept[a]} == {a for a, p in risks.items() if legal[a] and p <= lowest + 1e-12}
            fallback += 1
    assert narrowed >= 1 and fallback >= 1
    with pytest.raises(ValueError, match="midgame_foul guard needs the seat's view"):
        advisor.guarded_mask(np.zeros(1), np.ones(4, dtype=bool), {"midgame_foul": 0.0})
    with pytest.raises(ConfigError, match="cannot guard 'midgame_foul'"):
        check_guard(advisor_for(make_game(variant="original")), {"midgame_foul": 0.0}, "ofc_v0")
