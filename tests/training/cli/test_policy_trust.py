"""Issue 23.1: a policy file must not be able to run code. Hostile zips (a shipped policy with
a pickled member added, an old-style SB3 zip whose ``data`` carries a pickled payload) are
refused by every entry point that loads a policy, in one line naming the file, and the
payload (it would create a marker file) never runs. The payload is live: SB3's own loader runs it."""
from __future__ import annotations

import base64
import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from parlor import envs
from parlor.agents.policy import PolicyAgent, PolicyFileError, load_policy, read_signature
from parlor.cli import main
from parlor.cli.options import option_flags
from tests.agents.policy_files import payload, rewrite_zip, sb3_zip
from tests.training.scripted import register

register()
ROOT = Path(__file__).resolve().parents[3]
SHIPPED = ROOT / "agents" / "pretrained" / "ofc_pineapple.zip"
OPTIONS = read_signature(SHIPPED)["options"]
FLAGS = option_flags(OPTIONS)


def hostile(kind: str, tmp_path: Path) -> tuple[Path, Path]:
    """(the hostile file, the marker its payload would create)."""
    marker = tmp_path / f"{kind}.ran"
    path = tmp_path / f"{kind}.zip"
    if kind == "pickled member":
        rewrite_zip(SHIPPED, path, {"extra.pkl": payload(marker)})
    elif kind == "sb3 data member":  # the attack on a copy of a shipped policy
        data = {"policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": base64.b64encode(payload(marker)).decode()}}
        rewrite_zip(SHIPPED, path, {"data": json.dumps(data).encode()})
    else:  # an old-style (format 1) SB3 zip with a malicious data entry
        sb3_zip(path, envs.make_game("ofc_v0", **OPTIONS), marker)
    return path, marker


def ofc_config(folder: Path) -> Path:
    """A training config for the shipped policy's env and options (to fine-tune it with --init)."""
    import yaml

    path = folder / "ofc.yaml"
    path.write_text(yaml.safe_dump({"env": "ofc_v0", "options": OPTIONS, "opponents": [{"agent": "random"}],
                                    "total_steps": 64}))
    return path


KINDS = ("pickled member", "sb3 data member", "old sb3 zip")
ENTRY_POINTS = {
    "eval": lambda p, out: ["eval", "ofc_v0", *FLAGS, "--agents", f"ppo:{p},random", "--games", "2",
                            "--out", str(out), "--no-plot", "--quiet"],
    "eval --workers 2": lambda p, out: ["eval", "ofc_v0", *FLAGS, "--agents", f"ppo:{p},random", "--games", "4",
                                        "--workers", "2", "--out", str(out), "--no-plot", "--quiet"],
    "play": lambda p, out: ["play", "ofc_v0", *FLAGS, "--vs", f"ppo:{p}", "--seed", "1"],
    "train --init": lambda p, out: ["train", str(ofc_config(p.parent)), "--init", str(p), "--out", str(out),
                                    "--no-progress"],
    "shield": lambda p, out: ["shield", str(p), str(out), "--clear"],
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_a_hostile_policy_is_refused_in_one_line_and_its_payload_never_runs(tmp_path: Path, capsys, entry: str,
                                                                           kind: str) -> None:
    path, marker = hostile(kind, tmp_path)
    out = tmp_path / "out"
    capsys.readouterr()
    assert main(ENTRY_POINTS[entry](path, out)) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0], lines
    assert ("Stable-Baselines3 zip" if kind != "pickled member" else "unexpected members ['extra.pkl']") in lines[0]
    assert not marker.exists()
    assert not out.exists()  # refused before any run folder or copy was written


@pytest.mark.parametrize("kind", KINDS)
def test_self_play_snapshots_and_the_api_refuse_a_hostile_policy(tmp_path: Path, kind: str) -> None:
    from parlor.training.learning import PoolEntry, SingleAgentEnv

    path, marker = hostile(kind, tmp_path)
    env = SingleAgentEnv("ofc_v0", OPTIONS, [PoolEntry("random")], seed=0)
    with pytest.raises(PolicyFileError, match=str(path)):
        env.add_snapshot(str(path))
    with pytest.raises(PolicyFileError):
        PolicyAgent.from_file(path, env.game)
    with pytest.raises(PolicyFileError):
        read_signature(path)
    assert not marker.exists()


def test_the_payload_is_live_sb3s_own_loader_runs_it(tmp_path: Path) -> None:
    """The control: what parlor refuses would have run code through MaskablePPO.load."""
    from sb3_contrib import MaskablePPO

    first = tmp_path / "first.ran"
    pickle.loads(payload(first))
    assert first.exists()
    path, marker = hostile("old sb3 zip", tmp_path)
    MaskablePPO.load(str(path), device="cpu")
    assert marker.exists()


def test_convert_rewrites_a_hostile_sb3_zip_without_running_it_and_plays_the_same(tmp_path: Path, capsys) -> None:
    from sb3_contrib import MaskablePPO

    from tests.harness import kuhn

    game = kuhn.make_game()
    marker = tmp_path / "convert.ran"
    evil = sb3_zip(tmp_path / "evil.zip", game, marker)
    benign = sb3_zip(tmp_path / "benign.zip", game)  # the same network (seed 0), no payload
    new = tmp_path / "new.zip"
    assert main(["convert", str(evil), str(new)]) == 0
    assert not marker.exists()
    assert "policy format 2" in capsys.readouterr().out
    header = read_signature(new)
    assert header["num_timesteps"] == 16 and header["architecture"]["pi"] == [8]
    assert header["architecture"]["activation"] == "relu"
    reference = MaskablePPO.load(str(benign), device="cpu").policy  # trusted here: the test made it
    converted = load_policy(new, game)
    a, b = PolicyAgent(reference, deterministic=False), PolicyAgent(converted, deterministic=False)
    rng = np.random.default_rng(0)
    for _ in range(10):
        obs = rng.random(game.observation_shape).astype(np.float32)
        mask = np.ones(game.num_actions, bool)
        assert np.array_equal(a.probabilities(obs, mask), b.probabilities(obs, mask))
    # converting a file that is not format 1 is one line, too
    assert main(["convert", str(new), str(tmp_path / "again.zip")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
