"""A random agent that can be slowed down, for tests that interrupt a running evaluation.

``PARLOR_TEST_ACT_DELAY`` (seconds per action, default 0) is read at construction, so a test
sets it only for the child process it interrupts: the run then lasts long enough that the
signal lands mid-run on a loaded machine, while the moves (and so the results) are those of
``RandomAgent`` with the same seed.
"""
from __future__ import annotations

import os
import time

from parlor.agents.base import RandomAgent

DELAY_VARIABLE = "PARLOR_TEST_ACT_DELAY"


class PacedRandom(RandomAgent):
    """``RandomAgent`` that sleeps ``$PARLOR_TEST_ACT_DELAY`` seconds before each action."""

    def __init__(self, game=None, seed: int | None = None):
        super().__init__(game, seed)
        self.delay = float(os.environ.get(DELAY_VARIABLE, "0"))

    def act(self, observation, action_mask, view, sample_world=None) -> int:
        if self.delay:
            time.sleep(self.delay)
        return super().act(observation, action_mask, view, sample_world)
