"""The evaluation runner: tournaments, determinism across workers, Elo, field mode."""
from __future__ import annotations

import pytest

from parlor.training.evaluation.runner import EvalConfig, evaluate
from tests.harness import kuhn

RULE = "tests.agents.kuhn_agents:KuhnRule"
BET = "tests.agents.kuhn_agents:AlwaysBet"


def kuhn_eval(agents, games, seed=0, workers=1):
    config = EvalConfig(env="kuhn_test", agents=tuple(agents), games=games, seed=seed, workers=workers)
    return evaluate(config, make_game=kuhn.make_game)


def test_same_seed_same_results_with_one_or_two_workers() -> None:
    one = kuhn_eval(["random", "search:8:random", RULE], games=40, seed=3, workers=1)
    two = kuhn_eval(["random", "search:8:random", RULE], games=40, seed=3, workers=2)
    assert one["agents"] == two["agents"]
    assert one["records"] == two["records"]
    other = kuhn_eval(["random", "search:8:random", RULE], games=40, seed=4, workers=1)
    assert other["records"] != one["records"]


def test_ci_width_shrinks_with_games() -> None:
    small = kuhn_eval(["random", RULE], games=50)
    large = kuhn_eval(["random", RULE], games=800)
    assert large["agents"][0]["ci95"] < small["agents"][0]["ci95"] / 2


@pytest.mark.slow  # 300 deals with a search agent; test_stats.py checks the ratings on a synthetic tournament
def test_three_agents_get_elo_in_order_of_their_wins() -> None:
    results = kuhn_eval([BET, "random", "search:16:random"], games=300, seed=1)
    elo = [a["elo"] for a in results["agents"]]
    wins = [sum(row) for row in results["pairwise_wins"]]
    # every pair plays as many hands, so Bradley-Terry ranks by total wins
    assert sorted(range(3), key=lambda i: elo[i]) == sorted(range(3), key=lambda i: wins[i])
    assert min(elo) == elo[1]  # random
    assert len(results["matchups"]) == 3
    total = sum(a["mean_reward"] * a["deals"] for a in results["agents"])
    assert abs(total) < 1e-9  # zero-sum game, every matchup plays the same deals both ways


def test_duplicate_seats_cancel_luck_in_self_play() -> None:
    results = kuhn_eval([RULE, RULE], games=100)
    assert [a["agent"] for a in results["agents"]] == [RULE, RULE + "#2"]
    assert all(a["mean_reward"] == 0.0 and a["ci95"] == 0.0 for a in results["agents"])


def test_field_mode_plays_each_agent_alone_in_the_given_seats_on_the_same_deals() -> None:
    config = EvalConfig(env="buki_v0", agents=("always_min", "always_max"), options={"num_deals": 2},
                        games=9, seed=5, field="heuristic", seats=(1, 2, 3))
    results = evaluate(config)
    field = 2
    by_agent: dict[int, list] = {0: [], 1: []}
    for r in results["records"]:
        (evaluated,) = {a for a in r["lineup"] if a != field}
        seat = r["lineup"].index(evaluated)
        assert seat in (1, 2, 3) and r["lineup"].count(field) == 3
        by_agent[evaluated].append((r["deal"], seat))
    assert sorted(by_agent[0]) == sorted(by_agent[1]) == [(d, s) for d in range(3) for s in (1, 2, 3)]
    names = [a["agent"] for a in results["agents"]]
    assert names == ["always_min", "always_max", "field:heuristic"]
    (diff,) = [p for p in results["paired"] if p["agent"] == "always_min" and p["minus"] == "always_max"]
    means = {a["agent"]: a["mean_reward"] for a in results["agents"]}
    assert diff["deals"] == 3 and diff["mean"] == pytest.approx(means["always_min"] - means["always_max"])


def test_agents_are_named_by_label_or_a_policy_file_name_never_its_path() -> None:
    config = EvalConfig(env="kuhn_test", agents=("me=ppo:/abs/runs/ofc-1/model.zip", "ppo:runs/x/policy.zip", RULE,
                                                 "random", "random"), field="table=search:4")
    assert config.names() == ["me", "policy", RULE, "random", "random#2", "table"]
    assert config.players() == ("ppo:/abs/runs/ofc-1/model.zip", "ppo:runs/x/policy.zip", RULE, "random", "random",
                                "search:4")
    assert EvalConfig(env="kuhn_test", agents=("random",), field="heuristic").names() == ["random", "field:heuristic"]


@pytest.mark.parametrize("agents,words", [
    (("ppo:a/model.zip", "ppo:b/model.zip"), "would both be called 'model'"),
    (("x=random", "x=heuristic"), "would both be called 'x'"),
    (("random=heuristic", "random"), "would both be called 'random'"),
    (("my agent=random",), "the name 'my agent'"),
    (("me=",), "names no agent after '='"),
])
def test_clashing_or_bad_agent_names_are_refused(agents, words) -> None:
    from parlor.envs.engine.game import ConfigError

    with pytest.raises(ConfigError, match=words):
        EvalConfig(env="kuhn_test", agents=agents)


def test_results_carry_the_seed_the_specs_and_a_warning_below_30_deals() -> None:
    small = kuhn_eval(["random", RULE], games=20, seed=7)
    assert small["seed"] == 7 and small["games"] == 20
    assert [(a["agent"], a["spec"]) for a in small["agents"]] == [("random", "random"), (RULE, RULE)]
    (warning,) = small["warnings"]
    assert "fewer than 30 deals" in warning and "every agent (10 deals)" in warning
    assert all(r["agents"] == [["random", RULE][a] for a in r["lineup"]] for r in small["records"])
    assert kuhn_eval(["random", RULE], games=60)["warnings"] == []
