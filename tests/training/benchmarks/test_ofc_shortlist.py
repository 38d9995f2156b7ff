"""``parlor bench --ofc-shortlist``: the expert's placements ranked in a policy's shortlists."""
from __future__ import annotations

from pathlib import Path

import pytest

from parlor import envs
from parlor.agents.ofc.shortlist import network_shortlist
from parlor.agents.policy import PolicyAgent, read_signature
from parlor.cli import main
from parlor.envs.ofc_outlook.rollouts import plans_of
from parlor.training.benchmarks import ofc_shortlist as study
from parlor.training.benchmarks.ofc_misplays import StudyConfig, collect_positions

POLICY = Path(__file__).resolve().parents[3] / "agents/pretrained/ofc_pineapple.zip"


def config() -> StudyConfig:
    options = {**read_signature(POLICY)["options"], "num_hands": 1}
    return StudyConfig(tuple(sorted(options.items())), deals=1, seed=5, default=2)


def test_ranks_are_the_expert_placements_places_in_the_policys_list() -> None:
    ranked = study.rank_decisions(POLICY, config())
    positions = collect_positions(config())
    assert len(ranked) == len(positions) == 10  # 2 seats x 5 turns, each with more than one candidate
    agent = PolicyAgent.from_file(POLICY, envs.make_game("ofc_v0", **dict(config().options)))
    for r, p in zip(ranked, positions):
        dests = [tuple(d) for d in plans_of(p.view).dests]
        listed = [dests[i] for i in network_shortlist(p.view, dests, agent.view_logits, 32)]
        assert r.rank == (listed.index(p.played) if p.played in listed else None)
        if r.candidates <= 32:  # the list holds every candidate: the expert's is in it
            assert r.rank is not None
    assert {r.street for r in ranked} == {"opening", "middle", "before last", "last"}


def test_the_report_counts_each_street_and_grows_with_k() -> None:
    ranked = [study.Ranked(0, "opening", 232, 0), study.Ranked(0, "opening", 232, None),
              study.Ranked(1, "opening", 232, 5), study.Ranked(1, "last", 6, 1)]
    lines = study.report(config(), "p.zip", ranked, sizes=(1, 8))
    rows = {line.split()[0]: line for line in lines[2:]}
    assert set(rows) == {"all", "opening", "last"}
    assert rows["all"].split()[1:4] == ["4", "175.5", "25.0%"]  # 1 of 4 ranked first
    assert rows["opening"].split()[1:3] == ["3", "232.0"] and "66.7%" in rows["opening"]  # 2 of 3 in the top 8
    assert rows["last"].split()[3] == "0.0%" and "100.0%" in rows["last"]


def test_the_command_needs_a_policy(capsys) -> None:
    with pytest.raises(SystemExit, match="--policy PATH"):
        main(["bench", "--ofc-shortlist", "2"])


def test_priced_lists_lose_less_as_they_grow_and_the_expert_is_priced() -> None:
    """Losses against the best of the top 32 and the expert's placement: never negative,
    never growing with K, zero at K = 32 where the list holds the expert's placement; the
    same seed prices the same; the report adds a table."""
    ranked = study.rank_decisions(POLICY, config(), worlds=8)
    assert ranked == study.rank_decisions(POLICY, config(), worlds=8)
    assert [(r.deal, r.street, r.rank) for r in ranked] == [(r.deal, r.street, r.rank)
                                                            for r in study.rank_decisions(POLICY, config())]
    for r in ranked:
        assert r.losses is not None and r.expert_loss is not None and r.expert_loss >= 0
        assert all(x >= 0 for x in r.losses) and list(r.losses) == sorted(r.losses, reverse=True)
        if r.rank is not None:
            assert r.losses[-1] == 0.0
        if r.rank == 0:
            assert r.losses[0] <= r.expert_loss + 1e-12 and r.losses[0] == r.expert_loss
    assert any(r.losses[0] > 0 for r in ranked if r.losses)
    lines = study.report(config(), "p.zip", ranked)
    table = lines[lines.index(next(x for x in lines if x.startswith("value lost"))) + 2:]
    assert table[0].split()[:2] == ["all", "10"] and len(table) == 5


def test_the_report_averages_losses_over_decisions() -> None:
    ranked = [study.Ranked(0, "opening", 232, 0, (1.0, 0.0), 0.5), study.Ranked(0, "last", 6, 1, (3.0, 0.0), 0.0),
              study.Ranked(1, "opening", 232, None, (2.0, 1.0), 0.0)]
    lines = study.loss_table(ranked, (1, 8))
    rows = {line.split()[0]: line.split() for line in lines[2:]}
    assert rows["all"][1] == "3" and rows["all"][2] == "+2.000" and rows["all"][5] == "+0.333"
    assert rows["opening"][1] == "2" and rows["opening"][2] == "+1.500" and rows["opening"][8] == "+0.250"


def test_worlds_out_of_range_is_refused() -> None:
    with pytest.raises(SystemExit, match="--worlds 0: worlds per decision"):
        main(["bench", "--ofc-shortlist", "1", "--policy", str(POLICY), "--worlds", "0"])
