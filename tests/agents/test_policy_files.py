"""Policy format 2 (parlor.agents.policy_format): JSON + safetensors, rebuilt from an allow-listed
architecture, every other file refused in one line that names it; saving round-trips exactly."""
from __future__ import annotations

import io
import json
import re
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("safetensors")

import torch
from safetensors.torch import save as save_tensors

from parlor.agents.policy import (
    PolicyAgent,
    PolicyFileError,
    architecture_for,
    check_policy,
    load_policy,
    read_signature,
    save_policy,
    save_policy_weights,
)
from tests.agents.policy_files import header_of, payload, rewrite_zip, tiny_policy
from tests.harness import kuhn

GAME = kuhn.make_game()
PRETRAINED = Path(__file__).resolve().parents[2] / "agents" / "pretrained"


def _weights(path: Path) -> dict[str, torch.Tensor]:
    from safetensors.torch import load

    with zipfile.ZipFile(path) as zf:
        return load(zf.read("weights.safetensors"))


def _with_header(good: Path, dest: Path, change: Callable[[dict], None]) -> Path:
    header = header_of(good)
    change(header)
    return rewrite_zip(good, dest, {"parlor.json": json.dumps(header).encode()})


def _with_weights(good: Path, dest: Path, change: Callable[[dict], None]) -> Path:
    tensors = _weights(good)
    change(tensors)
    return rewrite_zip(good, dest, {"weights.safetensors": save_tensors(tensors)})


def _duplicate_member(good: Path, dest: Path) -> Path:
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(dest, "w") as dst, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate name we write on purpose
        for name in src.namelist():
            dst.writestr(name, src.read(name))
        dst.writestr("parlor.json", src.read("parlor.json"))
    return dest


BAD_FILES: dict[str, tuple[Callable[[Path, Path], Path], str]] = {
    "not a zip": (lambda g, d: (d.write_bytes(b"hello, I am a text file"), d)[1], "not a readable policy zip"),
    "empty": (lambda g, d: (d.write_bytes(b""), d)[1], "not a readable policy zip"),
    "truncated": (lambda g, d: (d.write_bytes(g.read_bytes()[: g.stat().st_size // 2]), d)[1], "not a readable policy zip"),
    "no weights": (lambda g, d: rewrite_zip(g, d, {"weights.safetensors": None}), r"missing \['weights.safetensors'\]"),
    "no header": (lambda g, d: rewrite_zip(g, d, {"parlor.json": None}), r"missing \['parlor.json'\]"),
    "an extra member": (lambda g, d: rewrite_zip(g, d, {"notes.txt": b"hi"}), r"unexpected members \['notes.txt'\]"),
    "a pickled member": (lambda g, d: rewrite_zip(g, d, {"payload.pkl": payload(d.with_suffix(".ran"))}),
                         r"unexpected members \['payload.pkl'\]"),
    "an SB3 data member": (lambda g, d: rewrite_zip(g, d, {"data": b"{}"}), "Stable-Baselines3 zip.*parlor convert"),
    "a member twice": (_duplicate_member, "names a member twice"),
    "bad JSON": (lambda g, d: rewrite_zip(g, d, {"parlor.json": b"{not json"}), "parlor.json is not valid JSON"),
    "JSON not an object": (lambda g, d: rewrite_zip(g, d, {"parlor.json": b"[1, 2]"}), "must hold a JSON object"),
    "unknown format": (lambda g, d: _with_header(g, d, lambda h: h.update(format=3)), "format 3 is not one this parlor reads"),
    "format 1 header": (lambda g, d: _with_header(g, d, lambda h: h.update(format=1)), "says format 1"),
    "unknown field": (lambda g, d: _with_header(g, d, lambda h: h.update(run="rm -rf")), r"unknown fields \['run'\]"),
    "missing field": (lambda g, d: _with_header(g, d, lambda h: h.pop("num_timesteps")), "has no 'num_timesteps'"),
    "class not allowed": (lambda g, d: _with_header(g, d, lambda h: h["architecture"].update(policy="os.system")),
                          "policy='os.system' is not allowed; allowed values: MaskableActorCriticPolicy"),
    "activation not allowed": (lambda g, d: _with_header(g, d, lambda h: h["architecture"].update(activation="gelu")),
                               "activation='gelu' is not allowed; allowed values: tanh, relu"),
    "architecture vs signature": (lambda g, d: _with_header(g, d, lambda h: h["architecture"].update(num_actions=3)),
                                  "disagree with the signature"),
    "network bigger than the weights": (lambda g, d: _with_header(g, d, lambda h: h["architecture"].update(pi=[4096] * 4)),
                                        r"weights.safetensors is [\d,]+ bytes but the architecture .*pi=\[4096, 4096.* needs "),
    "tensor shape": (lambda g, d: _with_weights(g, d, lambda t: t.update({"mlp_extractor.policy_net.0.weight": t[
                         "mlp_extractor.policy_net.0.weight"].T.contiguous()})),
                     r"tensor mlp_extractor.policy_net.0.weight is torch.float32 \[12, 8\].*needs float32 \[8, 12\]"),
    "missing tensor": (lambda g, d: _with_weights(g, d, lambda t: t.update(hook=t.pop("action_net.bias"))),
                       r"missing tensors \['action_net.bias'\]"),
    "NaN weight": (lambda g, d: _with_weights(g, d, lambda t: t["action_net.bias"].fill_(float("nan"))),
                   "tensor action_net.bias holds NaN or infinite numbers"),
    "extra tensor": (lambda g, d: _with_weights(g, d, lambda t: t.update(hook=torch.zeros(1))),
                     r"unexpected tensors \['hook'\]"),
    "float64 tensor": (lambda g, d: _with_weights(g, d, lambda t: t.update({"value_net.bias": torch.zeros(1, dtype=torch.float64)})),
                       "value_net.bias is torch.float64"),
    "weights not safetensors": (lambda g, d: rewrite_zip(g, d, {"weights.safetensors": b"\x80\x04garbage" * 120}),
                                "weights.safetensors is not a readable safetensors file"),
    "optimizer without checkpoint": (lambda g, d: rewrite_zip(g, d, {"optimizer.safetensors": save_tensors({})}),
                                     "come together"),
}


@pytest.fixture
def good(tmp_path: Path) -> Path:
    return tiny_policy(tmp_path / "good.zip", GAME)


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_bad_policy_file_is_refused_in_one_line_naming_the_file(good: Path, tmp_path: Path, case: str) -> None:
    make, expected = BAD_FILES[case]
    path = make(good, tmp_path / "bad.zip")
    load_policy(good, GAME)  # the file it was made from is fine
    with pytest.raises(PolicyFileError) as info:
        load_policy(path, GAME)
    message = str(info.value)
    assert message.startswith(f"{path}: ") and "\n" not in message, message
    assert re.search(expected, message), message
    assert not path.with_suffix(".ran").exists()


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_check_policy_refuses_what_loading_refuses_with_the_same_message(good: Path, tmp_path: Path, case: str) -> None:
    """check_policy (no torch: numpy tensors, shapes from the architecture) lets nothing through
    that load_policy refuses; the dtype reads float64 where torch says torch.float64."""
    make, _ = BAD_FILES[case]
    path = make(good, tmp_path / "bad.zip")
    assert check_policy(good, GAME)["format"] == 2
    with pytest.raises(PolicyFileError) as loading:
        load_policy(path, GAME)
    with pytest.raises(PolicyFileError) as checking:
        check_policy(path, GAME)
    assert str(checking.value) == str(loading.value).replace("torch.float", "float")
    assert not path.with_suffix(".ran").exists()


@pytest.mark.parametrize("hidden", [(8,), (16, 4), (5, 7, 3)])
def test_architecture_tensor_shapes_are_those_of_the_network_it_builds(hidden: tuple[int, ...]) -> None:
    arch = architecture_for(GAME, {"pi": list(hidden), "vf": list(hidden[::-1])}, "relu")
    built = {name: tuple(t.shape) for name, t in arch.build().state_dict().items()}
    assert arch.tensor_shapes() == built


def test_a_saved_policy_loads_with_the_same_tensors_and_the_same_play(tmp_path: Path) -> None:
    path = tiny_policy(tmp_path / "p.zip", GAME, hidden=(16, 8), activation="relu", num_timesteps=7,
                       action_guard={}, metadata={"note": "test"})
    header = read_signature(path)
    assert header["format"] == 2 and header["num_timesteps"] == 7 and header["metadata"] == {"note": "test"}
    assert header["architecture"]["pi"] == [16, 8] and header["architecture"]["activation"] == "relu"
    policy = load_policy(path, GAME)
    saved = _weights(path)
    assert set(policy.state_dict()) == set(saved)
    assert all(torch.equal(policy.state_dict()[k], v) for k, v in saved.items())
    # save_policy of the loaded network writes the same tensors again, bit for bit
    again = save_policy(policy, tmp_path / "again.zip", GAME)
    assert _weights(again).keys() == saved.keys()
    assert all(torch.equal(_weights(again)[k], v) for k, v in saved.items())
    rng = np.random.default_rng(0)
    a, b = PolicyAgent(policy, deterministic=False), PolicyAgent(load_policy(again, GAME), deterministic=False)
    for _ in range(5):
        obs = rng.random(GAME.observation_shape).astype(np.float32)
        assert np.array_equal(a.probabilities(obs, np.ones(GAME.num_actions, bool)),
                              b.probabilities(obs, np.ones(GAME.num_actions, bool)))


def test_the_same_policy_saves_to_the_same_bytes(tmp_path: Path) -> None:
    a = tiny_policy(tmp_path / "a.zip", GAME)
    b = tiny_policy(tmp_path / "b.zip", GAME)
    assert a.read_bytes() == b.read_bytes()


def test_save_policy_weights_refuses_tensors_that_do_not_fit_the_architecture(tmp_path: Path) -> None:
    arch = architecture_for(GAME, (8,), "tanh")
    weights = arch.build().state_dict()
    weights["action_net.weight"] = torch.zeros(5, 8)
    with pytest.raises(PolicyFileError, match=r"tensor action_net.weight is torch.float32 \[5, 8\]"):
        save_policy_weights(weights, arch, tmp_path / "p.zip", GAME)
    assert not (tmp_path / "p.zip").exists()
    with pytest.raises(ValueError, match="activation='swish' is not allowed"):
        architecture_for(GAME, (8,), "swish")


def test_loading_a_policy_leaves_the_global_torch_rng_alone(good: Path) -> None:
    torch.manual_seed(1)
    expected = torch.rand(3)
    torch.manual_seed(1)
    load_policy(good, GAME)
    assert torch.equal(torch.rand(3), expected)  # training runs that load snapshots stay reproducible


@pytest.mark.parametrize("name", sorted(p.name for p in PRETRAINED.glob("*.zip")))
def test_shipped_policies_are_format_2_with_an_allow_listed_network(name: str) -> None:
    with zipfile.ZipFile(PRETRAINED / name) as zf:
        assert sorted(zf.namelist()) == ["parlor.json", "weights.safetensors"]
        header = json.load(io.BytesIO(zf.read("parlor.json")))
    assert header["format"] == 2
    assert header["architecture"]["policy"] == "MaskableActorCriticPolicy"
    assert header["architecture"]["activation"] in ("relu", "tanh")
