"""Tournament schedule, duplicate deals and aggregation."""
from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from parlor import envs
from parlor.agents.base import RandomAgent
from parlor.envs.records import Record, replay
from parlor.training.evaluation import deals
from parlor.training.evaluation.deals import deal_for
from parlor.training.evaluation.tournament import (
    Job,
    Recording,
    lineups_for,
    matchups_for,
    run_job,
    schedule,
    summarize,
)


@pytest.mark.parametrize("seats", [1, 2, 3, 4, 6])
def test_each_agent_sits_in_each_seat_equally_often(seats: int) -> None:
    lineups = lineups_for((0, 1), seats)
    assert len(set(lineups)) == len(lineups)
    for s in range(seats):
        held = Counter(lineup[s] for lineup in lineups)
        assert held[0] == held[1] if seats > 1 else held[0] == 1
    if seats > 1:
        assert all(0 in lineup and 1 in lineup for lineup in lineups)


def test_two_and_three_seats_use_every_mixed_arrangement() -> None:
    assert sorted(lineups_for((0, 1), 2)) == [(0, 1), (1, 0)]
    assert len(lineups_for((0, 1), 3)) == 6  # 2**3 - 2 mixed arrangements


def test_round_robin_and_solitaire_schedules() -> None:
    assert matchups_for(3, 2) == [(0, 1), (0, 2), (1, 2)]
    assert matchups_for(3, 1) == [(0, 1, 2)]
    assert matchups_for(1, 4) == [(0,)]
    jobs = schedule(3, 2, games=10)
    assert len(jobs) == 3 * 5 and all(len(j.lineups) == 2 for j in jobs)
    assert [j.deal for j in jobs if j.matchup == 0] == list(range(5))


class Recorder(RandomAgent):
    """Random play that remembers the first view of its seat in every episode."""

    first_views: list = []

    def reset(self, seed=None):
        super().reset(seed)
        self.seen = False

    def act(self, observation, action_mask, view, sample_world=None):
        if not self.seen:
            self.seen = True
            Recorder.first_views.append(view)
        return super().act(observation, action_mask, view)


def initial_encodings(game, job, seed):
    """Per lineup: every seat's observation of the freshly dealt state."""
    captured = []
    real_new_state = game.new_state

    def new_state(rng, decks=None):
        state = real_new_state(rng, decks)
        captured.append([game.encode(state.view(p)) for p in range(game.num_players)])
        return state

    game.new_state = new_state
    try:
        run_job(game, lambda a, s: RandomAgent(game), job, seed)
    finally:
        del game.new_state
    return captured


@pytest.mark.parametrize("env_name", envs.ENVS)
def test_duplicate_deals_replay_the_same_cards_whoever_sits_where(env_name: str) -> None:
    game = envs.make_game(env_name)
    seed = 5
    _, decks = deal_for(game, seed, 0)
    assert len(decks) == deals.decks_per_episode(game)
    for deck in decks:
        assert game.parse_deck(list(deck)) == deck  # a valid full deck / tile set
    assert deal_for(game, seed, 0) == deal_for(game, seed, 0)
    assert deal_for(game, seed, 1)[1] != decks
    job = Job(0, 0, tuple(lineups_for((0, 1), game.num_players)))
    captured = initial_encodings(game, job, seed)
    assert len(captured) == len(job.lineups)
    for other in captured[1:]:
        for p in range(game.num_players):
            np.testing.assert_array_equal(other[p], captured[0][p])
    next_deal = initial_encodings(game, Job(0, 1, job.lineups), seed)
    assert any(not np.array_equal(a, b) for a, b in zip(next_deal[0], captured[0]))


def test_summary_counts_wins_ties_and_per_deal_samples() -> None:
    records = [
        {"matchup": 0, "deal": 0, "lineup": [0, 1], "rewards": [2.0, -2.0], "stats": {"x": [1.0, 0.0]}, "truncated": False},
        {"matchup": 0, "deal": 0, "lineup": [1, 0], "rewards": [1.0, -1.0], "stats": {"x": [1.0, 1.0]}, "truncated": False},
        {"matchup": 0, "deal": 1, "lineup": [0, 1], "rewards": [0.0, 0.0], "stats": {"x": [0.0, 0.0]}, "truncated": True},
        {"matchup": 0, "deal": 1, "lineup": [1, 0], "rewards": [-3.0, 3.0], "stats": {"x": [0.0, 1.0]}, "truncated": False},
    ]
    s = summarize(records, ["a", "b"], num_seats=2)
    a, b = s["agents"]
    assert a["deals"] == 2 and a["seat_games"] == 4
    assert a["mean_reward"] == pytest.approx(((2 - 1) / 2 + (0 + 3) / 2) / 2)
    assert b["mean_reward"] == pytest.approx(-a["mean_reward"])
    assert a["win_rate"] == pytest.approx((1 + 0 + 0.5 + 1) / 4)
    assert s["pairwise_wins"] == [[0.0, 2.5], [1.5, 0.0]]
    assert a["stats"]["x"]["mean"] == pytest.approx(((1 + 1) / 2 + (0 + 1) / 2) / 2)
    assert s["truncated"] == 1


def test_summary_reports_rates_as_ratios_of_sums_over_an_agents_seats() -> None:
    def record(deal, lineup, num, den):
        return {"matchup": 0, "deal": deal, "lineup": lineup, "rewards": [0.0, 0.0],
                "stats": {"n": num, "d": den}, "truncated": False}

    records = [record(0, [0, 1], [1.0, 0.0], [0.5, 0.0]), record(0, [1, 0], [0.0, 0.0], [0.0, 0.5]),
               record(1, [0, 1], [3.0, 1.0], [1.0, 1.0]), record(1, [1, 0], [2.0, 0.0], [1.0, 0.0])]
    a, b = summarize(records, ["a", "b"], num_seats=2, ratios={"rate": ("n", "d")})["agents"]
    assert a["ratios"]["rate"]["mean"] == pytest.approx((1 + 0 + 3 + 0) / (0.5 + 0.5 + 1 + 0))
    assert b["ratios"]["rate"]["mean"] == pytest.approx((0 + 0 + 1 + 2) / (0 + 0 + 1 + 1))
    assert a["ratios"]["rate"]["ci95"] > 0
    assert summarize(records, ["a", "b"], num_seats=2)["agents"][0]["ratios"] == {}


def test_solitaire_compares_agents_on_the_same_deal() -> None:
    records = [
        {"matchup": 0, "deal": d, "lineup": [a], "rewards": [r], "stats": {}, "truncated": False}
        for d, rewards in enumerate([(10.0, 5.0, 5.0), (3.0, 4.0, 1.0)]) for a, r in enumerate(rewards)
    ]
    s = summarize(records, ["a", "b", "c"], num_seats=1)
    wins = np.array(s["pairwise_wins"])
    assert wins[0, 1] == 1 and wins[1, 0] == 1 and wins[1, 2] == 1.5 and wins[2, 1] == 0.5
    assert [x["win_rate"] for x in s["agents"]] == [0.5, 0.5, 0.0]


def test_recording_adds_each_episodes_game_record_and_changes_no_result() -> None:
    game = envs.make_game("tonk_v0")
    job = Job(matchup=0, deal=1, lineups=((0, 1, 1), (1, 0, 1)))
    agents = {}
    plain = run_job(game, lambda a, s: agents.setdefault((a, s), RandomAgent(game)), job, seed=3)
    agents.clear()
    recorded = run_job(game, lambda a, s: agents.setdefault((a, s), RandomAgent(game)), job, seed=3,
                       recording=Recording(("x", "y")))
    assert [{k: v for k, v in r.items() if k != "record"} for r in recorded] == plain  # recording changes no result
    for i, episode in enumerate(recorded):
        record = Record.from_dict(json.loads(json.dumps(episode["record"])))  # a JSON object, as streamed
        assert len(record.steps) == episode["steps"] and list(record.rewards) == episode["rewards"]
        assert record.agents == tuple("xy"[a] for a in episode["lineup"])
        assert record.tags == {"matchup": 0, "deal": 1, "lineup": i} and record.stacked == 1
        replay(record, game)  # every move is in it
