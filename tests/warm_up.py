"""Compile once what every test process would otherwise compile for itself (``make test``).

A fresh clone has no compiled code: the install writes no bytecode (uv, like ``pip --no-compile``),
and numba compiles the OFC kernels at their first call and caches the machine code beside
their source (``cache=True``). Each pytest worker, and each fresh interpreter a test
starts, would pay for that again until the caches exist. ``make test`` runs this module
beside mypy, before the tests, so the test run finds the caches made:

- ``pytest --collect-only`` imports every test module and what it imports, writing the
  bytecode of the venv's and parlor's modules and the test modules' rewritten asserts;
- the modules that test modules import only when their tests run (RLlib: see the ``_rllib``
  fixtures of tests/training/learning/test_rllib*.py) are imported here, so their bytecode
  is written once too;
- the OFC kernels are compiled by their own ``warm_up`` functions, one Pineapple hand of
  the heuristic against the expert (the planner's and the expert's kernels) and one of the
  shipped guarded policy (the foul count of its action guard).

Nothing here is a test: a failure shows again, with its test, in the test run itself.
"""
from __future__ import annotations

import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path


def start_collecting(pytest_args: list[str]) -> subprocess.Popen[bytes]:
    """Start collecting the tests that ``pytest PYTEST_ARGS tests`` would run, in a child pytest."""
    return subprocess.Popen([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                             *pytest_args, "tests"], stdout=subprocess.DEVNULL)


def compile_kernels() -> None:
    import parlor.agents
    from parlor import envs
    from parlor.agents.episodes import play_episode
    from parlor.agents.registry import make_agent
    from parlor.envs.ofc_outlook import block_kernel, turn_kernel

    turn_kernel.warm_up()
    block_kernel.warm_up()
    game = envs.make_game("ofc_v0", variant="pineapple", features=True)
    play_episode(game, [make_agent("heuristic", game, seed=0), make_agent("expert", game, seed=1)], seed=0)
    safe = Path(parlor.agents.__file__).parent / "pretrained" / "ofc_pineapple_safe.zip"
    play_episode(game, [make_agent(f"ppo:{safe}", game), make_agent("heuristic", game, seed=1)], seed=0)


# what test modules import inside their fixtures (the ``_rllib`` fixtures), not at collection
DEFERRED = ("ray.rllib.core.columns", "ray.rllib.env.multi_agent_env_runner", "ray.rllib.utils.metrics",
            "parlor.training.learning.rllib_runner", "parlor.training.learning.rllib_train", "parlor.training.rllib",
            "tests.training.learning.rllib_unmasked")


def import_deferred() -> None:
    """Import DEFERRED, if the [scale] extra is installed (without it those tests are skipped)."""
    if importlib.util.find_spec("ray") is None:
        return
    for name in DEFERRED:
        importlib.import_module(name)


def main(pytest_args: list[str]) -> int:
    # the collection (mostly compiling bytecode) runs in its child beside the kernels' compiling
    # here: each is one core's work, and mypy, in the background, takes what is left (two
    # processes writing one module's bytecode is safe: each writes a temporary file, then renames)
    collecting = start_collecting(pytest_args)
    compile_kernels()
    import_deferred()
    return collecting.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
