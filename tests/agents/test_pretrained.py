"""The shipped policies in agents/pretrained/: small, policy format 2 (JSON + safetensors,
nothing pickled), loadable by name, legal in their env, and refused by an env with other options."""
from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from parlor import envs
from parlor.agents.episodes import play_episode
from parlor.agents.policy import read_signature
from parlor.agents.registry import make_agent

PRETRAINED = Path(__file__).resolve().parents[2] / "agents" / "pretrained"
SHIPPED = tuple(sorted(p.name for p in PRETRAINED.glob("*.zip")))


def test_the_three_task_policies_are_shipped() -> None:
    assert {"ofc_pineapple.zip", "buffalo_bill_solitaire.zip", "buki_betting.zip"} <= set(SHIPPED)


def test_the_safe_ofc_policy_plays_inside_the_endgame_guard_and_the_midgame_cap() -> None:
    # the README's foul result is this policy with these guards (parlor shield)
    sig = read_signature(PRETRAINED / "ofc_pineapple_safe.zip")
    assert sig["action_guard"] == {"endgame_foul": 0.0, "midgame_foul": 0.02}
    assert sig["env"] == "ofc_v0" and sig["options"]["variant"] == "pineapple"
    agent = make_agent(f"ppo:{PRETRAINED / 'ofc_pineapple_safe.zip'}", envs.make_game("ofc_v0", **sig["options"]))
    assert agent.guard == sig["action_guard"]


def test_the_distilled_ofc_policy_plays_its_last_four_turns_with_the_expert() -> None:
    # the README's result is this network with this planner (parlor shield --late-planner --shortlist
    # --late-samples: expert:32 on the opening's shortlist, 64 on the first draw, 48 and 16 on the
    # next two, 4 on the exact last turn)
    sig = read_signature(PRETRAINED / "ofc_pineapple_distilled.zip")
    assert sig["late_planner"] == {"agent": "expert:32", "turns": 4, "shortlist": 4, "samples": [64, 48, 16, 4]}
    assert "action_guard" not in sig
    agent = make_agent(f"ppo:{PRETRAINED / 'ofc_pineapple_distilled.zip'}", envs.make_game("ofc_v0", **sig["options"]))
    assert agent.late is not None and agent.late.turns == 4 and agent.late.agent.samples == 32
    assert agent.late.shortlist == 4 and agent.late.prior is not None


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_policy_plays_legally_in_its_env(name: str) -> None:
    path = PRETRAINED / name
    assert path.stat().st_size < 3_000_000  # the network alone, no optimizer state
    with zipfile.ZipFile(path) as zf:
        assert sorted(zf.namelist()) == ["parlor.json", "weights.safetensors"]
    sig = read_signature(path)
    assert sig["format"] == 2 and sig["options"]["features"] is True
    game = envs.make_game(sig["env"], **sig["options"])
    lineup = [make_agent(f"ppo:{path}", game)] + [
        make_agent("heuristic", game, seed=s) for s in range(1, game.num_players)]
    result = play_episode(game, lineup, 7, None, list(range(game.num_players)))
    assert not result.truncated and np.isfinite(result.rewards).all()
    plain = {**sig["options"], "features": False}
    with pytest.raises(ValueError, match="option features"):
        make_agent(f"ppo:{path}", envs.make_game(sig["env"], **plain))


def test_an_ofc_policy_plays_any_number_of_hands_but_not_another_variant() -> None:
    # OFC's portable options (num_hands, fl_cards, fl_stay) leave the observation layout and
    # the actions as they are: the single-hand policy plays a 6-hand match (issue 26)
    path = PRETRAINED / "ofc_pineapple.zip"
    options = read_signature(path)["options"]
    assert options["num_hands"] == 1
    game = envs.make_game("ofc_v0", **{**options, "num_hands": 6, "fl_cards": "progressive"})
    lineup = [make_agent(f"ppo:{path}", game), make_agent("heuristic", game, seed=1)]
    result = play_episode(game, lineup, 3, None, [0, 1])
    assert result.stats["regular_hands"][0] + result.stats["fl_hands"][0] == 1.0
    with pytest.raises(ValueError, match="option variant: trained with 'pineapple', loading into 'original'"):
        make_agent(f"ppo:{path}", envs.make_game("ofc_v0", **{**options, "variant": "original"}))
