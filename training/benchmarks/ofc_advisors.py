"""Speed of the OFC advisors, side by side in one run: this code against a reference copy.

Workloads (heads-up Pineapple; the same seeded positions and hands in both code trees):

- ``observe``: CPU microseconds per ``features=True`` observation (``game.observe`` over
  the positions of seeded random play, in play order: the observation alone);
- ``features``: random play through ``ofc_v0.env(variant="pineapple", features=True)``
  (the AEC loop of :mod:`parlor.training.benchmarks.env_speed`): steps per CPU second;
- ``ofc_pineapple``, ``ofc_pineapple_safe``, ``ofc_pineapple_multihand``: a shipped policy
  in both seats (the safe one inside the guard its file carries; the multi-hand one, trained
  for 6-hand matches, plays single hands like the others): CPU milliseconds per hand, the
  network's forward passes included (torch held to one thread). A policy the reference
  tree does not ship (the multi-hand one is later than 3abf228, in a file format that code
  cannot read) is measured on this code only;
- ``heuristic``, ``search``: the rule-based heuristic and the default search agent
  (8 heuristic playouts per decision) in both seats, ``features`` off: CPU ms per hand.

Each measurement runs this file as a script in a fresh process, on the installed
parlor or on the checkout given as ``reference`` (e.g. ``git archive 3abf228 | tar -x
-C /tmp/parlor-ref``: main before the speed work), imported in place of the installed
one (:func:`use_code_tree`; the process reports where its code came from and the run
stops if that is not the tree asked for). The two trees alternate for ``rounds``
rounds and the best round of each counts (the one least disturbed by other load).
Every run also reports a digest of what it observed or played, so the table says
whether both trees computed the very same observations and decisions. Compare the
ratios, not the absolute numbers: the machines are shared and noisy.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass

# workload -> (unit, True when larger is better)
WORKLOADS = {
    "observe": ("us/obs", False),
    "features": ("steps/s", True),
    "ofc_pineapple": ("ms/hand", False),
    "ofc_pineapple_safe": ("ms/hand", False),
    "ofc_pineapple_multihand": ("ms/hand", False),
    "ofc_pineapple_distilled": ("ms/hand", False),
    "heuristic": ("ms/hand", False),
    "search": ("ms/hand", False),
    "expert": ("ms/hand", False),
}
# episodes (observe, features) or hands per measurement at scale 1
UNITS = {"observe": 60, "features": 150, "ofc_pineapple": 20, "ofc_pineapple_safe": 10, "ofc_pineapple_multihand": 20,
         "ofc_pineapple_distilled": 10, "heuristic": 60, "search": 4, "expert": 3}
SPEEDUP_TARGET = {"observe": 10.0, "features": 10.0}   # the aims (26.6)
MS_TARGET = {"ofc_pineapple": 50.0, "ofc_pineapple_safe": 50.0, "ofc_pineapple_multihand": 50.0}


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


def _observe(units: int) -> tuple[float, str]:
    """(CPU microseconds per observation, digest of the observations)."""
    import numpy as np

    from parlor import envs

    game = envs.make_game("ofc_v0", variant="pineapple", features=True)
    digest, count, cpu = hashlib.sha256(), 0, 0.0
    for episode in range(units):
        rng = np.random.default_rng(episode)
        state = game.new_state(rng)
        while not state.is_terminal():
            player = state.current_player
            assert player is not None  # a state that is not terminal has a seat to act
            start = time.process_time()
            obs = game.observe(state, player)
            cpu += time.process_time() - start
            count += 1
            digest.update(obs.tobytes())
            state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
    return 1e6 * cpu / count, digest.hexdigest()[:16]


def _features(units: int) -> tuple[float, str]:
    """(AEC steps per CPU second of random play with features, digest of the observations)."""
    import numpy as np

    from parlor import envs

    env = envs.make("ofc_v0", variant="pineapple", features=True)
    digest, steps, cpu = hashlib.sha256(), 0, 0.0
    for episode in range(units):
        rng = np.random.default_rng(episode)
        observations = []
        start = time.process_time()
        env.reset(seed=episode)
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
    game = envs.make_game("ofc_v0", variant="pineapple", features=policy)
    spec = f"ppo:{os.path.join(root, 'agents', 'pretrained', workload + '.zip')}" if policy else workload
    agents = [make_agent(spec, game, seed=p) for p in range(2)]
    play_episode(game, agents, seed=10**6, agent_seeds=[1, 2])  # warm-up: files, imports, tables
    digest, cpu = hashlib.sha256(), 0.0
    for seed in range(units):
        start = time.process_time()
        result = play_episode(game, agents, seed=seed, agent_seeds=[seed * 10, seed * 10 + 1])
        cpu += time.process_time() - start
        digest.update(repr((result.rewards, sorted(result.stats.items()), result.steps)).encode())
    return 1000.0 * cpu / units, digest.hexdigest()[:16]


def measure(workload: str, units: int, root: str) -> dict:
    """One measurement in this process: {"value", "digest", "root" (where parlor was imported from)}."""
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    import parlor.envs

    if workload == "observe":
        value, digest = _observe(units)
    elif workload == "features":
        value, digest = _features(units)
    else:
        value, digest = _hands(workload, units, root)
    return {"value": value, "digest": digest, "root": os.path.dirname(os.path.dirname(parlor.envs.__file__))}


def installed_root() -> str:
    """The checkout the installed parlor runs from."""
    import parlor.envs

    return os.path.dirname(os.path.dirname(os.path.abspath(parlor.envs.__file__)))


def run_one(workload: str, units: int, reference: str | None) -> dict:
    """:func:`measure` in a fresh process, on the installed code (``reference`` None) or on the
    tree at ``reference``; checks that the process ran the code asked for."""
    root = os.path.abspath(reference) if reference else installed_root()
    cmd = [sys.executable, os.path.abspath(__file__), workload, str(units), root] + (["--tree"] if reference else [])
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    if os.path.realpath(result["root"]) != os.path.realpath(root):
        raise RuntimeError(f"the {workload} run imported parlor from {result['root']}, not from {root}")
    return result


@dataclass
class Row:
    workload: str
    ours: float
    reference: float | None
    same: bool | None   # both trees computed the same observations / play (None without a reference)

    @property
    def speedup(self) -> float | None:
        if self.reference is None:
            return None
        return self.ours / self.reference if WORKLOADS[self.workload][1] else self.reference / self.ours


def compare(workloads: list[str], reference: str | None, rounds: int = 2, scale: float = 1.0) -> list[Row]:
    """Every workload measured ``rounds`` times on both trees in alternation; the best round counts."""
    unknown = [w for w in workloads if w not in WORKLOADS]
    if unknown:
        raise ValueError(f"unknown OFC advisor workload(s) {', '.join(unknown)}; allowed values: {', '.join(WORKLOADS)}")
    if rounds < 1:
        raise ValueError(f"rounds={rounds} must be at least 1")
    rows = []
    for name in workloads:
        units = max(1, round(UNITS[name] * scale))
        best = max if WORKLOADS[name][1] else min
        ours, theirs, digests = [], [], set()
        against = reference if reference and plays(name, reference) else None
        for _ in range(rounds):
            if against:
                result = run_one(name, units, against)
                theirs.append(result["value"])
                digests.add(result["digest"])
            result = run_one(name, units, None)
            ours.append(result["value"])
            digests.add(result["digest"])
        rows.append(Row(name, best(ours), best(theirs) if theirs else None, len(digests) == 1 if against else None))
    return rows


def plays(workload: str, root: str) -> bool:
    """Whether the code tree at ``root`` can run the workload: it ships the policy file a
    policy workload plays."""
    return not workload.startswith("ofc_pineapple") or os.path.exists(
        os.path.join(root, "agents", "pretrained", workload + ".zip"))


def verdict(row: Row) -> str:
    if row.workload in MS_TARGET:
        return f"<= {MS_TARGET[row.workload]:.0f} ms: " + ("ok" if row.ours <= MS_TARGET[row.workload] else "MISSED")
    if row.workload in SPEEDUP_TARGET and row.speedup is not None:
        target = SPEEDUP_TARGET[row.workload]
        return f">= {target:.0f}x: " + ("ok" if row.speedup >= target else "MISSED")
    return ""


def report(rows: list[Row]) -> list[str]:
    lines = [f"{'OFC advisors':23s} {'unit':>8s} {'reference':>10s} {'this code':>10s} {'speed-up':>9s} "
             f"{'same':>5s}  target"]
    for r in rows:
        ref = f"{r.reference:10,.1f}" if r.reference is not None else f"{'-':>10s}"
        up = f"{r.speedup:8.1f}x" if r.speedup is not None else f"{'-':>9s}"
        same = "-" if r.same is None else ("yes" if r.same else "NO")
        lines.append(f"{r.workload:23s} {WORKLOADS[r.workload][0]:>8s} {ref} {r.ours:10,.1f} {up} {same:>5s}  "
                     f"{verdict(r)}".rstrip())
    return lines


if __name__ == "__main__":
    workload, units, root = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if "--tree" in sys.argv:
        use_code_tree(root)
    print(json.dumps(measure(workload, units, root)))
