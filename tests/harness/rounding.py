"""How the golden digests hash floats that a compiled kernel computes.

The numba kernels are the one production path (``envs/ofc_outlook/turn_kernel.py``); the
tests hold them to a numpy oracle (``tests/ofc_outlook/oracle.py``) with a tolerance, not
bit for bit: the kernel sums a mean in its own order, numpy pairwise. So a digest of such
numbers hashes them rounded, and either path gives it:

- the planner's float64 statistics (``tests/agents/ofc/test_advisor_digests.py``): rounded to
  :data:`STATS_DECIMALS`; the paths agree to ~1e-15;
- the ``features=True`` OFC observations (the advisor ``features`` digests and the harness's
  random play of ``ofc_v0`` with features): rounded to :data:`OBSERVATION_DECIMALS`. The
  outlook's float32 entries of the two paths differ by one float32 step (< 6e-8) in about
  1 observation of 2,900 (14 of 40,794 in 300 seeded 2-hand Pineapple games), while the
  smallest change a real one makes is one sample of the 32 moving a plan's value by a point:
  1 / 32 / ``VALUE_SCALE`` = 7.8e-4. Every other observation is hashed exactly as it is.

Rounding is done once, here, in float64 (``+ 0.0``: a rounded -0.0 hashes as 0.0).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

STATS_DECIMALS = 6
OBSERVATION_DECIMALS = 5


def rounded_bytes(values: Any, decimals: int) -> bytes:
    """``values`` as float64 bytes, rounded to ``decimals`` places."""
    return (np.round(np.asarray(values, dtype=np.float64), decimals) + 0.0).tobytes()


def has_kernel_floats(env_name: str, options: Mapping[str, Any]) -> bool:
    """Whether the env's observations carry numbers of a compiled kernel: OFC's feature block."""
    return env_name == "ofc_v0" and bool(options.get("features", False))


def observation_bytes(observation: np.ndarray, kernel_floats: bool) -> bytes:
    """What a digest hashes of an observation: its float32 bytes, or rounded to
    :data:`OBSERVATION_DECIMALS` where it carries kernel floats (:func:`has_kernel_floats`)."""
    if kernel_floats:
        return rounded_bytes(observation, OBSERVATION_DECIMALS)
    return np.asarray(observation, np.float32).tobytes()
