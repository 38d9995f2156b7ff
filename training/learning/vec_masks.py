"""Action masks that travel with each step's results instead of in a second round trip.

MaskablePPO asks the vector env for the masks before every step
(``env_method("action_masks")``): with ``SubprocVecEnv`` that is a second message to
every env process and a second wait per step, on top of ``step`` itself. Here each env
(:class:`MaskInInfo`) puts its mask for the next decision into the info dict it returns
from ``reset`` and ``step``, and :class:`CachedMasks` answers ``env_method("action_masks")``
from the last results: the masks an env process would have sent, without asking it. After
an auto-reset (an episode ended) the next decision is the new episode's, so the mask is
the one in that env's ``reset_infos``. The masks are the same arrays either way, so
training is unchanged, only faster (``parlor bench --train``).
"""
from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import VecEnvWrapper

MASK_INFO = "parlor_action_mask"
METHOD = "action_masks"


class MaskInInfo(gym.Wrapper):
    """Adds ``info[MASK_INFO] = env.action_masks()`` to what ``reset`` and ``step`` return."""

    def _mask(self) -> Any:
        return getattr(self.env.unwrapped, METHOD)()  # a parlor env's (gymnasium's Env has none)

    def reset(self, **kwargs: Any) -> tuple[Any, dict]:
        obs, info = self.env.reset(**kwargs)
        return obs, {**info, MASK_INFO: self._mask()}

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated, truncated, {**info, MASK_INFO: self._mask()}


def masked_env(make: Any) -> MaskInInfo:
    """``MaskInInfo(make())``: a module-level function, so env processes can unpickle it."""
    return MaskInInfo(make())


class CachedMasks(VecEnvWrapper):
    """A vector env of :class:`MaskInInfo` envs whose ``env_method("action_masks")`` is
    answered from the last ``reset``/``step`` results; every other call goes to the envs."""

    def __init__(self, venv: Any):
        super().__init__(venv)
        self._masks: list[np.ndarray] | None = None

    def reset(self) -> Any:
        obs = self.venv.reset()
        self._masks = [info[MASK_INFO] for info in self.venv.reset_infos]
        return obs

    def step_wait(self) -> Any:
        obs, rewards, dones, infos = self.venv.step_wait()
        reset_infos = self.venv.reset_infos
        self._masks = [reset_infos[i][MASK_INFO] if done else info[MASK_INFO]
                       for i, (done, info) in enumerate(zip(dones, infos))]
        return obs, rewards, dones, infos

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        if method_name == METHOD and not args and not kwargs and self._masks is not None:
            return [self._masks[i] for i in self._get_indices(indices)]
        if method_name != METHOD:
            self._masks = None  # another call may change an env's state (e.g. a reset of its own)
        return self.venv.env_method(method_name, *args, indices=indices, **kwargs)
