"""Speed of the OFC advisors, side by side in one run: this code against a reference copy.

Workloads (heads-up Pineapple, the same seeded hands in both code trees):

- ``features``: random play through ``ofc_v0.env(variant="pineapple", features=True)``
  (the AEC loop of :mod:`parlor.training.benchmarks.env_speed`): steps per CPU second;
- ``ofc_pineapple``, ``ofc_pineapple_safe``: a shipped policy in both seats (the safe
  one inside the guard its file carries): CPU milliseconds per hand, the network's
  forward passes included (torch held to one thread);
- ``heuristic``, ``search``: the rule-based heuristic and the default search agent
  (``search``: 8 heuristic playouts per decision) in both seats, ``features`` off:
  CPU milliseconds per hand.

Each measurement runs this file as a script in a fresh process, with the installed
parlor or with the tree given as ``--reference`` (a checkout of the code to compare
with, e.g. ``git archive 3abf228 | tar -x -C /tmp/parlor-ref``), imported in place of
the installed one (:func:`use_code_tree`). The two alternate for ``rounds`` rounds and
the fastest round of each counts (the one least disturbed by other load); every run
also reports a digest of what it played, so the table can say whether both trees
played the very same observations and decisions. Compare the ratios, not the
absolute numbers: the machines are shared and noisy.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass

# workload -> (what one unit is, how many units by default, reference unit target of this tree)
WORKLOADS = {
    "features": "steps/s",
    "ofc_pineapple": "ms/hand",
    "ofc_pineapple_safe": "ms/hand",
    "heuristic": "ms/hand",
    "search": "ms/hand",
}
UNITS = {"features": 150, "ofc_pineapple": 20, "ofc_pineapple_safe": 12, "heuristic": 60, "search": 6}
TARGETS = {"features": "10x", "ofc_pineapple": "<= 50 ms", "ofc_pineapple_safe": "<= 50 ms"}
POLICY_MS_TARGET = 50.0
FEATURES_RATIO_TARGET = 10.0


def use_code_tree(root: str) -> None:
    """Import ``parlor.envs``, ``parlor.agents`` and ``parlor.training`` from the checkout at
    ``root`` instead of the installed copy (a finder ahead of the editable install's)."""
    import importlib.abc
    import importlib.machinery
    import importlib.util

    tops = {f"parlor.{name}": os.path.join(root, name) for name in ("envs", "agents", "training")}

    class TreeFinder(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path=None, target=None):
            if fullname in tops:
                return importlib.util.spec_from_file_location(
                    fullname, os.path.join(tops[fullname], "__init__.py"), submodule_search_locations=[tops[fullname]])
            parent = fullname.rpartition(".")[0]
            if parent in sys.modules and any(fullname.startswith(top + ".") for top in tops):
                return importlib.machinery.PathFinder.find_spec(fullname, sys.modules[parent].__path__)
            return None

    sys.meta_path.insert(0, TreeFinder())


def _features(units: int, root: str) -> tuple[float, str]:
    """(AEC steps per CPU second of random play with features, digest of the observations)."""
    import numpy as np

    from parlor import envs

    env = envs.make("ofc_v0", variant="pineapple", features=True)
    digest, steps, cpu = hashlib.sha256(), 0, 0.0
    for episode in range(units):
        rng = np.random.default_rng(episode)
        start = time.process_time()
        env.reset(seed=episode)
        observations = []
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            observations.append(obs["observation"])
            if term or trunc:
                action = None
            else:
                legal = obs["action_mask"].nonzero()[0]
                action = int(legal[rng.integers(legal.size)])
            env.step(action)
            steps += 1
        cpu += time.process_time() - start
        for o in observations:  # hashed outside the timed loop
            digest.update(o.tobytes())
    return steps / cpu, digest.hexdigest()[:16]


def _hands(workload: str, units: int, root: str) -> tuple[float, str]:
    """(CPU milliseconds per heads-up hand of ``workload`` in both seats, digest of the play)."""
    from parlor import envs
    from parlor.agents.episodes import play_episode
    from parlor.agents.registry import make_agent

    policy = workload.startswith("ofc_pineapple")  # the shipped policies read the feature block
    options = {"variant": "pineapple", "features": policy}
    spec = f"ppo:{os.path.join(root, 'agents', 'pretrained', workload + '.zip')}" if policy else workload
    game = envs.make_game("ofc_v0", **options)
    agents = [make_agent(spec, game, "ofc_v0", seed=p) for p in range(2)]
    play_episode(game, agents, seed=10**6, agent_seeds=[1, 2])  # warm-up: files, imports, caches
    digest, cpu = hashlib.sha256(), 0.0
    for seed in range(units):
        start = time.process_time()
        result = play_episode(game, agents, seed=seed, agent_seeds=[seed * 10, seed * 10 + 1])
        cpu += time.process_time() - start
        digest.update(repr((result.rewards, sorted(result.stats.items()), result.steps)).encode())
    return 1000.0 * cpu / units, digest.hexdigest()[:16]


def measure(workload: str, units: int, root: str) -> tuple[float, str]:
    """One measurement in this process (parlor already importable from ``root``)."""
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    return _features(units, root) if workload == "features" else _hands(workload, units, root)


@dataclass
class Row:
    workload: str
    ours: float
    reference: float | None
    same: bool | None


def run_one(workload: str, units: int, reference: str | None) -> tuple[float, str]:
    """Run :func:`measure` in a fresh process on the installed code (``reference`` None)
    or on the tree at ``reference``."""
    root = reference or _installed_root()
    cmd = [sys.executable, __file__, workload, str(units), root] + (["--tree"] if reference else [])
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    return result["value"], result["digest"]


def _installed_root() -> str:
    import parlor.envs

    return os.path.dirname(os.path.dirname(os.path.abspath(parlor.envs.__file__)))


def compare(workloads: list[str], reference: str | None, rounds: int, scale: float = 1.0) -> list[Row]:
    """Every workload measured ``rounds`` times in alternation on both trees; the best round counts."""
    rows = []
    for name in workloads:
        if name not in WORKLOADS:
            raise ValueError(f"unknown OFC advisor workload {name!r}; allowed values: {', '.join(WORKLOADS)}")
        units = max(1, round(UNITS[name] * scale))
        better = max if WORKLOADS[name] == "steps/s" else min
        ours, theirs, digests = [], [], set()
        for _ in range(rounds):
            if reference:
                value, digest = run_one(name, units, reference)
                theirs.append(value)
                digests.add(("ref", digest))
            value, digest = run_one(name, units, None)
            ours.append(value)
            digests.add(("ours", digest))
        same = None if not reference else len({d for _, d in digests}) == 1
        rows.append(Row(name, better(ours), better(theirs) if theirs else None, same))
    return rows


def report(rows: list[Row]) -> list[str]:
    lines = [f"{'OFC advisors':22s} {'unit':>8s} {'reference':>11s} {'this code':>11s} {'speed-up':>9s} "
             f"{'same play':>10s} {'target':>10s}"]
    for r in rows:
        unit = WORKLOADS[r.workload]
        speedup = None
        if r.reference is not None:
            speedup = r.ours / r.reference if unit == "steps/s" else r.reference / r.ours
        ok = ""
        if r.workload == "features" and speedup is not None:
            ok = "ok" if speedup >= FEATURES_RATIO_TARGET else "SLOW"
        elif r.workload in TARGETS:
            ok = "ok" if r.ours <= POLICY_MS_TARGET else "SLOW"
        ref = f"{r.reference:11,.1f}" if r.reference is not None else f"{'-':>11s}"
        up = f"{speedup:8.1f}x" if speedup is not None else f"{'-':>9s}"
        same = "-" if r.same is None else ("yes" if r.same else "NO")
        lines.append(f"{r.workload:22s} {unit:>8s} {ref} {r.ours:11,.1f} {up} {same:>10s} "
                     f"{TARGETS.get(r.workload, ''):>7s} {ok}")
    return lines


if __name__ == "__main__":
    workload, units, root = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if "--tree" in sys.argv:
        use_code_tree(root)
    value, digest = measure(workload, units, root)
    print(json.dumps({"value": value, "digest": digest}))
