"""Issue 34.5: property-based fuzzing of every file a user hands parlor. Valid policy files,
format-1 zips, evaluation and training configs, game records and saved states are mutated
(truncation, bit flips, spliced bytes, type swaps, deep nesting, aliases, huge numbers, huge
declared sizes); each mutant must be accepted or refused with a ConfigError (the one
user-input error), within the time bound and, for what Python allocates while reading it,
the memory bound (~64 MB plus 10x its size).

``make test`` runs a few derandomized examples of each target (seconds). The long run is
outside CI: ``PARLOR_FUZZ_MINUTES=N pytest -p no:cacheprovider tests/fuzz/test_fuzz.py -k long``
fuzzes every target with fresh random examples for N minutes in all and prints what it ran
(docs/soak.md has its figures).
"""
from __future__ import annotations

import json
import os
import tempfile
import time
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from parlor import envs
from parlor.envs.engine.game import ConfigError
from tests.fuzz import corpus

SECONDS, BUDGET_BYTES, PER_BYTE = 3.0, 64 << 20, 10
LONG_MINUTES = float(os.environ.get("PARLOR_FUZZ_MINUTES", "0"))
# no shrinking in CI: a failing example is reported as found (shrinking a slow target takes minutes)
CI = settings(max_examples=12, deadline=None, derandomize=True, database=None, phases=[Phase.explicit, Phase.generate],
              suppress_health_check=list(HealthCheck))


# ---------------------------------------------------------------- mutations
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12)
SPECIAL_JSON = ("[" * 100_000 + "]" * 100_000, "9" * 5000, "1e999", "-1", "NaN", "Infinity", '"' + "x" * 100_000 + '"',
                "[" + ",".join(["[1,2,3,4,5,6,7,8]"] * 5000) + "]")

byte_mutation = st.one_of(
    st.tuples(st.just("truncate"), st.floats(0, 1)),
    st.tuples(st.just("flip"), st.lists(st.tuples(st.floats(0, 1), st.integers(0, 7)), min_size=1, max_size=8)),
    st.tuples(st.just("splice"), st.floats(0, 1), st.binary(min_size=1, max_size=64)),
)


def mutate_bytes(data: bytes, mutation: tuple) -> bytes:
    kind, *args = mutation
    if kind == "truncate":
        return data[: int(args[0] * len(data))]
    if kind == "flip":
        out = bytearray(data)
        for where, bit in args[0]:
            if out:
                out[min(len(out) - 1, int(where * len(out)))] ^= 1 << bit
        return bytes(out)
    where = int(args[0] * len(data))
    return data[:where] + args[1] + data[where + len(args[1]):]


def swap_value(document: Any, path_choice: float, replacement: Any) -> Any:
    """``document`` (JSON-like) with one value, picked by ``path_choice`` among all its values, replaced."""
    paths: list[tuple] = []

    def walk(value: Any, path: tuple) -> None:
        paths.append(path)
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, (*path, k))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, (*path, i))
    walk(document, ())
    path = paths[min(len(paths) - 1, int(path_choice * len(paths)))]
    if not path:
        return replacement
    copy = json.loads(json.dumps(document))
    target = copy
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = replacement
    return copy


structural = st.one_of(
    st.tuples(st.just("value"), st.floats(0, 1), json_values),
    st.tuples(st.just("special"), st.floats(0, 1), st.sampled_from(SPECIAL_JSON)),
)


def mutated_json(document: Any, mutation: tuple) -> str:
    kind, where, value = mutation
    if kind == "value":
        return json.dumps(swap_value(document, where, value))
    marker = "__special__"
    return json.dumps(swap_value(document, where, marker)).replace(json.dumps(marker), value)


# ---------------------------------------------------------------- the checks
def within_bounds(read: Callable[[], Any], size: int) -> str:
    """Run ``read``: 'accepted' or 'refused' (a ConfigError); anything else fails the test, as
    does a read over the time bound or over the memory bound (what Python allocates)."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        read()
        outcome = "accepted"
    except ConfigError:
        outcome = "refused"
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    seconds = time.perf_counter() - start
    assert seconds <= SECONDS, f"{seconds:.1f} s"
    assert peak <= BUDGET_BYTES + PER_BYTE * size, f"{peak:,} bytes for a file of {size:,}"
    return outcome


class Targets:
    """The valid inputs each target mutates, made once per process."""

    def __init__(self) -> None:
        from tests.agents.policy_files import tiny_policy

        self.folder = Path(tempfile.mkdtemp(prefix="parlor-fuzz-"))
        self.game = envs.make_game("tonk_v0")
        self.policy = tiny_policy(self.folder / "policy.zip", self.game).read_bytes()
        with zipfile.ZipFile(self.folder / "policy.zip") as zf:
            self.header = json.loads(zf.read("parlor.json"))
            self.weights = zf.read("weights.safetensors")
        self.eval_config = {"env": "tonk_v0", "options": {"stake": 1}, "agents": ["heuristic", "random"], "games": 6,
                            "seed": 3, "workers": 1}
        self.train_config = json.loads(json.dumps({
            "env": "tonk_v0", "options": {}, "opponents": [{"agent": "heuristic", "weight": 1.0}], "total_steps": 64,
            "seed": 0, "ppo": {"n_steps": 32, "batch_size": 16, "net_arch": [8]},
            "eval": {"every": 32, "deals": 2, "opponents": ["random"], "baselines": ["random"]}}))
        from parlor.agents.base import RandomAgent
        from parlor.agents.episodes import play_episode
        from parlor.envs.records import record_episode

        result = play_episode(self.game, [RandomAgent(self.game, seed=s) for s in range(3)], 7)
        self.record = record_episode(self.game, result.state, seed=7, agents=["a", "b", "c"]).to_dict()
        self.state = json.loads(self.game.serialize_state(result.state))
        from parlor.training.evaluation.runner import EvalConfig, plan

        plan(EvalConfig(**self.eval_config))  # imports done before any bound is measured

    def path(self, name: str, data: bytes | str) -> Path:
        path = self.folder / name
        path.write_bytes(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
        return path


_targets: Targets | None = None


def targets() -> Targets:
    global _targets
    if _targets is None:
        _targets = Targets()
    return _targets


def load_policy_file(path: Path) -> None:
    from parlor.agents.policy import load_policy

    load_policy(path, targets().game)


def policy_bytes(t: Targets, mutation: tuple) -> bytes:
    kind = mutation[0]
    if kind == "bytes":
        return mutate_bytes(t.policy, mutation[1])
    if kind == "header":
        header = mutated_json(t.header, mutation[1]).encode()
        return corpus.raw_zip(t.folder / "m.zip", [corpus.stored("parlor.json", header),
                                                   corpus.stored("weights.safetensors", t.weights)]).read_bytes()
    declared = mutation[1]  # a huge or small declared size of either member
    members = [corpus.stored("parlor.json", json.dumps(t.header).encode()), corpus.stored("weights.safetensors", t.weights)]
    name, data, method, crc, size = members[mutation[2]]
    members[mutation[2]] = (name, data, method, crc, declared)
    return corpus.raw_zip(t.folder / "m.zip", members).read_bytes()


policy_mutation = st.one_of(
    st.tuples(st.just("bytes"), byte_mutation),
    st.tuples(st.just("header"), structural),
    st.tuples(st.just("size"), st.integers(0, 2**32 - 1), st.integers(0, 1)),  # (no zip64 in raw_zip)
)


def check_policy(mutation: tuple) -> str:
    t = targets()
    path = t.path("policy.mut.zip", policy_bytes(t, mutation))
    return within_bounds(lambda: load_policy_file(path), path.stat().st_size)


def yaml_text(document: dict, mutation: tuple) -> str:
    kind = mutation[0]
    if kind == "bytes":
        return mutate_bytes(json.dumps(document).encode(), mutation[1]).decode("utf-8", "replace")
    if kind == "alias":
        return f"x: &a [{', '.join(['1'] * 9)}]\ny: [*a, *a, *a]\n" + json.dumps(document)[1:-1].replace('", "', '"\n"')
    return mutated_json(document, mutation[1])


config_mutation = st.one_of(
    st.tuples(st.just("bytes"), byte_mutation),
    st.tuples(st.just("structure"), structural),
    st.tuples(st.just("alias")),
)


def check_eval_config(mutation: tuple) -> str:
    from parlor.cli import build_parser
    from parlor.training.cli.eval import config_from_args
    from parlor.training.evaluation.runner import plan

    t = targets()
    path = t.path("eval.yaml", yaml_text(t.eval_config, mutation))
    args = build_parser().parse_args(["eval", "--config", str(path)])
    return within_bounds(lambda: plan(config_from_args(args)), path.stat().st_size)


def check_train_config(mutation: tuple) -> str:
    from parlor.training.cli.train import check_named_agents
    from parlor.training.learning.configs import load_config
    from parlor.training.learning.wrapper import make_env_game

    t = targets()
    path = t.path("train.yaml", yaml_text(t.train_config, mutation))

    def read() -> None:  # what parlor train checks before it makes a run folder
        config = load_config(str(path))
        check_named_agents(config, make_env_game(config.env, config.options))
    return within_bounds(read, path.stat().st_size)


def check_record(mutation: tuple) -> str:
    from parlor.envs.records import Record, replay

    t = targets()
    text = yaml_text(t.record, mutation) if mutation[0] != "alias" else json.dumps(t.record)
    return within_bounds(lambda: replay(Record.from_json(text)), len(text))


def check_state(mutation: tuple) -> str:
    t = targets()
    text = yaml_text(t.state, mutation) if mutation[0] != "alias" else json.dumps(t.state)
    return within_bounds(lambda: t.game.deserialize_state(text), len(text))


TARGETS: dict[str, tuple[Callable[[tuple], str], Any]] = {
    "policy file": (check_policy, policy_mutation),
    "eval config": (check_eval_config, config_mutation),
    "train config": (check_train_config, config_mutation),
    "game record": (check_record, config_mutation),
    "saved state": (check_state, config_mutation),
}


@pytest.mark.parametrize("target", list(TARGETS))
def test_a_mutated_file_is_accepted_or_refused_in_bounds(target: str) -> None:
    check, mutation = TARGETS[target]

    def examine(m: tuple) -> None:
        check(m)
    CI(given(mutation)(examine))()


def test_the_unmutated_files_are_accepted() -> None:
    """The fuzz targets start from valid files (else every mutant would be refused trivially)."""
    for check, mode in ((check_policy, ("bytes", ("truncate", 1.0))), (check_eval_config, ("bytes", ("truncate", 1.0))),
                        (check_train_config, ("bytes", ("truncate", 1.0))), (check_record, ("bytes", ("truncate", 1.0))),
                        (check_state, ("bytes", ("truncate", 1.0)))):
        assert check(mode) == "accepted", check.__name__


def _counting(check: Callable[[tuple], str], counts: dict[str, int]) -> Callable[[tuple], None]:
    def counted(mutation: tuple) -> None:
        counts["examples"] += 1
        counts[check(mutation)] += 1
    return counted


@pytest.mark.skipif(LONG_MINUTES <= 0, reason="the long fuzz run: set PARLOR_FUZZ_MINUTES")
def test_long_fuzz_run() -> None:
    """Fresh random examples of every target, round robin, for PARLOR_FUZZ_MINUTES in all."""
    ready = dict(TARGETS)
    deadline = time.monotonic() + 60 * LONG_MINUTES
    counts = {name: {"examples": 0, "accepted": 0, "refused": 0} for name in ready}
    rounds = 0
    while time.monotonic() < deadline:
        for name, (check, mutation) in ready.items():
            settings(max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck))(
                given(mutation)(_counting(check, counts[name])))()
        rounds += 1
    print(json.dumps({"minutes": LONG_MINUTES, "rounds": rounds, "targets": counts}, indent=1))
