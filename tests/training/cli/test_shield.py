"""``parlor shield``: a trained policy put inside an action guard, the network untouched."""
from __future__ import annotations

import zipfile
from pathlib import Path

from parlor import envs
from parlor.agents.policy import PolicyAgent, action_guard, read_signature
from parlor.cli import main

ROOT = Path(__file__).resolve().parents[3]


def test_parlor_shield_puts_a_trained_policy_inside_a_guard(tmp_path: Path, capsys) -> None:
    source = ROOT / "agents/pretrained/ofc_pineapple.zip"
    dest = tmp_path / "shielded.zip"
    assert main(["shield", str(source), str(dest), "--guard", "foul_cap=0.25", "--guard", "foul=0.1"]) == 0
    assert action_guard(read_signature(dest)) == {"foul_cap": 0.25, "foul": 0.1}
    assert action_guard(read_signature(source)) == {}  # the source is untouched
    before, after = read_signature(source), read_signature(dest)
    assert {k: v for k, v in after.items() if k != "action_guard"} == before
    with zipfile.ZipFile(source) as a, zipfile.ZipFile(dest) as b:  # the network is the same
        assert a.read("weights.safetensors") == b.read("weights.safetensors")
    game = envs.make_game("ofc_v0", variant="pineapple", features=True)
    assert PolicyAgent.from_file(dest, game).guard == {"foul_cap": 0.25, "foul": 0.1}
    assert main(["shield", str(dest), str(dest), "--clear"]) == 0
    assert action_guard(read_signature(dest)) == {} and "action_guard" not in read_signature(dest)
    capsys.readouterr()
    assert main(["shield", str(source), str(dest), "--guard", "royalties=1"]) == 2
    assert "cannot guard 'royalties'" in capsys.readouterr().err
    assert main(["shield", str(source), str(dest), "--guard", "foul_cap"]) == 2
    assert "expected NAME=TOLERANCE" in capsys.readouterr().err
    assert main(["shield", str(source), str(dest), "--guard", "foul_cap=-1"]) == 2
    assert "--guard foul_cap=-1" in capsys.readouterr().err
