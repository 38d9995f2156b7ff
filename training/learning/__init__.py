"""Learning: the single-agent Gymnasium wrapper (the learner in one seat, opponents from a
pool or frozen snapshots of itself, ``opponents``), strict training configs, the behaviour-cloning warm
start, the SB3 callback (evaluation, checkpoints, self-play snapshots, learning curve) and
the MaskablePPO training run. torch and sb3 are imported only where training needs them.

    from parlor.training.learning import SingleAgentEnv
    env = SingleAgentEnv("ofc_v0", {"variant": "pineapple"}, opponents=[("heuristic", 1.0)])
"""
from parlor.training.learning.opponents import PoolEntry
from parlor.training.learning.wrapper import SingleAgentEnv, register_env

__all__ = ["PoolEntry", "SingleAgentEnv", "register_env"]
