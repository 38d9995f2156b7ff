"""A policy's late turns played by a planner (``late_planner``): written by ``parlor shield``,
checked, and played as the planner alone and the network alone would play their turns."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from parlor import envs
from parlor.agents.episodes import decide
from parlor.agents.ofc.heuristic import OFCHeuristic
from parlor.agents.policy import PolicyAgent, action_guard, check_policy, read_signature
from parlor.agents.policy_planner import late_planner_of
from parlor.agents.registry import make_agent
from parlor.cli import main
from parlor.envs.engine.game import ConfigError

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "agents/pretrained/ofc_pineapple.zip"  # heads-up Pineapple, features=True


def game():
    return envs.make_game("ofc_v0", variant="pineapple", features=True)


@pytest.fixture(scope="module")
def planned(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("planned") / "planned.zip"
    assert main(["shield", str(SOURCE), str(dest), "--late-planner", "expert:4", "--late-turns", "3"]) == 0
    return dest


@pytest.fixture(scope="module")
def shortlisted(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("shortlisted") / "shortlisted.zip"
    assert main(["shield", str(SOURCE), str(dest), "--late-planner", "expert:4", "--late-turns", "3",
                 "--shortlist", "1"]) == 0
    return dest


def test_shield_writes_keeps_and_clears_the_late_planner(planned: Path, tmp_path: Path, capsys) -> None:
    assert late_planner_of(read_signature(planned)) == {"agent": "expert:4", "turns": 3}
    assert late_planner_of(read_signature(SOURCE)) is None
    guarded = tmp_path / "guarded.zip"
    assert main(["shield", str(planned), str(guarded), "--guard", "foul_cap=0.25"]) == 0  # the planner is kept
    assert late_planner_of(read_signature(guarded)) == {"agent": "expert:4", "turns": 3}
    assert action_guard(read_signature(guarded)) == {"foul_cap": 0.25}
    assert main(["shield", str(guarded), str(guarded), "--clear-late-planner"]) == 0  # the guard is kept
    assert late_planner_of(read_signature(guarded)) is None and "late_planner" not in read_signature(guarded)
    assert action_guard(read_signature(guarded)) == {"foul_cap": 0.25}
    assert "late planner none" in capsys.readouterr().out


@pytest.mark.parametrize("args,message", [
    (["--late-planner", "heuristic", "--late-turns", "2"], "late_planner.agent 'heuristic': not a planner of ofc_v0"),
    (["--late-planner", "expert:0", "--late-turns", "2"], "bad expert budget '0'"),
    (["--late-planner", "expert:4", "--late-turns", "0"], "late_planner.turns: an integer in 1..64"),
    (["--late-planner", "expert:4"], "--late-planner SPEC and --late-turns N go together"),
    (["--shortlist", "4"], "--shortlist K needs --late-planner"),
    (["--late-samples", "4,4"], "--late-samples S1,S2,... needs --late-planner"),
    (["--late-planner", "expert:4", "--late-turns", "2", "--late-samples", "4"], "late_planner.samples: a list of 2"),
    (["--late-planner", "expert:4", "--late-turns", "2", "--late-samples", "4,0"], "late_planner.samples: a list of 2"),
    (["--late-planner", "expert:4", "--late-turns", "2", "--late-samples", "4,x"], "expected integers separated"),
    (["--late-planner", "expert:4", "--late-turns", "2", "--shortlist", "0"], "late_planner.shortlist: an integer"),
    (["--late-planner", "search:4", "--late-turns", "2"], "not a planner of ofc_v0"),
    ([], "nothing to change"),
])
def test_shield_refuses_a_bad_late_planner(tmp_path: Path, capsys, args: list[str], message: str) -> None:
    dest = tmp_path / "out.zip"
    assert main(["shield", str(SOURCE), str(dest), *args]) == 2
    assert message in capsys.readouterr().err
    assert not dest.exists()


@pytest.mark.parametrize("setting", [{"agent": "expert:4"}, {"agent": "expert:4", "turns": 2, "x": 1},
                                     {"agent": 4, "turns": 2}, {"agent": "expert", "turns": True}, "expert:4",
                                     {"agent": "expert:4", "turns": 2, "shortlist": 1.5},
                                     {"agent": "expert:4", "turns": 2, "shortlist": 65},
                                     {"agent": "expert:4", "turns": 2, "samples": [4]},
                                     {"agent": "expert:4", "turns": 2, "samples": [4, True]},
                                     {"agent": "expert:4", "turns": 2, "samples": "44"},
                                     {"agent": "expert:4", "turns": 2, "samples": [4, 1 << 17]}])
def test_a_malformed_header_setting_is_a_config_error(setting) -> None:
    with pytest.raises(ConfigError, match="late_planner"):
        late_planner_of({"late_planner": setting})


def test_check_policy_checks_the_late_planner_without_torch(planned: Path) -> None:
    assert check_policy(planned, game())["late_planner"] == {"agent": "expert:4", "turns": 3}
    with pytest.raises(ConfigError, match="not a planner of ofc_v0"):
        PolicyAgent(PolicyAgent.from_file(SOURCE, game()).actor, game(), late_planner={"agent": "random", "turns": 1})


def test_the_shortlist_is_written_and_checked(shortlisted: Path) -> None:
    setting = {"agent": "expert:4", "turns": 3, "shortlist": 1}
    assert late_planner_of(read_signature(shortlisted)) == setting
    assert check_policy(shortlisted, game())["late_planner"] == setting


def test_each_late_turn_plans_with_its_own_samples(tmp_path: Path, monkeypatch) -> None:
    """``--late-samples`` sets the planner's budget turn by turn (first late turn to last);
    the shortlisted earlier turns keep the spec's own; the setting survives the file."""
    from parlor.agents.ofc.expert import OFCExpert

    dest = tmp_path / "budgeted.zip"
    assert main(["shield", str(SOURCE), str(dest), "--late-planner", "expert:4", "--late-turns", "3",
                 "--shortlist", "2", "--late-samples", "2,3,1"]) == 0
    setting = {"agent": "expert:4", "turns": 3, "shortlist": 2, "samples": [2, 3, 1]}
    assert late_planner_of(read_signature(dest)) == setting == check_policy(dest, game())["late_planner"]
    used: list[tuple[int, int]] = []
    values = OFCExpert.values

    def recording(self, view, among=None):
        used.append((self.turns_left(view), self.samples))
        return values(self, view, among)

    monkeypatch.setattr(OFCExpert, "values", recording)
    g = game()
    agent, opponent = PolicyAgent.from_file(dest, g, seed=2), OFCHeuristic(g, seed=1)
    for deal in range(2):
        state = g.new_state(np.random.default_rng(deal))
        while not state.is_terminal():
            p = state.current_player
            state.apply(decide(agent if p == 0 else opponent, g, state, p))
    expected = {5: 4, 4: 4, 3: 2, 2: 3, 1: 1}
    assert used and all(samples == expected[left] for left, samples in used), used
    assert {5, 4, 3, 2} <= {left for left, _ in used}


def test_per_turn_samples_need_a_planner_with_a_budget(monkeypatch) -> None:
    import parlor.agents.registry as registry
    from parlor.agents.policy_planner import LatePlanner

    class Unbudgeted:  # a planner that tells late turns but has no samples to set
        def turns_left(self, view):
            return 1

    monkeypatch.setattr(registry, "make_agent", lambda spec, game, seed=None: Unbudgeted())
    with pytest.raises(ConfigError, match="has no budget of samples to set per turn"):
        LatePlanner({"agent": "expert:4", "turns": 1, "samples": [1]}, game())


@pytest.mark.parametrize("which", ["planned", "shortlisted"])
def test_late_turns_are_the_planners_and_the_others_the_networks(which: str, request) -> None:
    """Decision by decision, the planned policy plays what the planner alone (same seed, asked the
    same late decisions) and the network alone play; both sides get turns; same seed, same play.
    A shortlist of one is the network's own placement of the turn's cards, most probable card by
    card: the placed views the planner shows the network are the env's own, masks included."""
    g = game()
    path = request.getfixturevalue(which)

    def play(seed: int) -> list[int]:
        hybrid = PolicyAgent.from_file(path, g, seed=seed)
        network, expert = PolicyAgent.from_file(SOURCE, g), make_agent("expert:4", g, seed=seed)
        opponent = OFCHeuristic(g, seed=1)
        state, taken, sides = g.new_state(np.random.default_rng(5)), [], {"planner": 0, "network": 0}
        turns = []
        while not state.is_terminal():
            p = state.current_player
            if p != 0:
                state.apply(decide(opponent, g, state, p))
                continue
            view = state.view(0)
            left = expert.turns_left(view)
            side = "planner" if left is not None and left <= 3 else "network"
            action = decide(hybrid, g, state, 0)
            assert action == decide(expert if side == "planner" else network, g, state, 0), side
            sides[side] += 1
            turns.append((left, side))
            taken.append(action)
            state.apply(action)
        assert sides["planner"] >= 6 and sides["network"] >= 8, sides  # 3 turns of 3 cards; the opening's 5
        assert {left for left, side in turns if side == "network"} == {4, 5}  # the opening and the first draw
        return taken

    assert play(3) == play(3)


def test_turns_left_counts_the_seats_regular_turns() -> None:
    g = envs.make_game("ofc_v0", variant="pineapple")
    expert = make_agent("expert:4", g, seed=0)
    state = g.new_state(np.random.default_rng(0))
    assert expert.turns_left(state.view(state.current_player)) == 5  # the opening and four draws
    original = envs.make_game("ofc_v0", variant="original")
    state = original.new_state(np.random.default_rng(0))
    assert make_agent("expert:4", original, seed=0).turns_left(state.view(state.current_player)) == 9  # 5 + 8
