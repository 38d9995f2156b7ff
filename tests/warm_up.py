"""Compile the OFC numba kernels once, beside the tests (``make test``).

A fresh clone has no compiled kernels: numba compiles each at its first call and caches the
machine code beside its source (``cache=True``), about 26 CPU-s in all. Each pytest worker,
and each fresh interpreter a test starts, would pay for that itself until the caches exist.
``make test`` starts this module in the background at the same moment as mypy and the tests.
It compiles every kernel through the kernels' own ``warm_up`` functions, one Pineapple hand of
the heuristic against the expert (the planner's and the expert's kernels) and one of the
shipped guarded policy (the foul count of its action guard). When it ends, failure or not, it
leaves the file ``kernels`` in the folder ``PARLOR_COMPILE_ONCE`` names; until then a test
process that is about to compile a kernel waits for it (tests/compile_once.py) and then
loads the cache.

Nothing here is a test: a failure shows again, with its test, in the test run itself.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from tests import compile_once


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


def main() -> int:
    try:
        compile_kernels()
    finally:
        if os.environ.get(compile_once.FOLDER):
            (Path(os.environ[compile_once.FOLDER]) / compile_once.KERNELS).touch()
    return 0


if __name__ == "__main__":
    sys.exit(main())
