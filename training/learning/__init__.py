"""Learning: the single-agent Gymnasium wrapper (the learner in one seat, opponents from a
pool or frozen snapshots of itself, ``opponents``), strict training configs, the behaviour-cloning warm
start, the SB3 callback (evaluation, checkpoints, self-play snapshots, learning curve) and
the MaskablePPO training run (its rollouts act through a lean forward pass with the same
numbers, :mod:`.rollout`; ``vec_env: subproc`` steps env 0 in the learner's process and
the others in theirs, :mod:`.vec_env`). torch and sb3 are imported only where training needs them.

    from parlor.training.learning import SingleAgentEnv
    env = SingleAgentEnv("ofc_v0", {"variant": "pineapple"}, opponents=[("heuristic", 1.0)])

Importing this package registers the Gymnasium ids ``parlor/<Name>-v<N>`` (one per env,
the learner against the heuristic table; :mod:`.registration`):

    env = gymnasium.make("parlor/OFC-v0", variant="pineapple")
"""
from parlor.training.learning.opponents import PoolEntry
from parlor.training.learning.registration import gym_id, gym_ids, make_single_agent_env
from parlor.training.learning.wrapper import SingleAgentEnv, register_env

__all__ = ["PoolEntry", "SingleAgentEnv", "gym_id", "gym_ids", "make_single_agent_env", "register_env"]
