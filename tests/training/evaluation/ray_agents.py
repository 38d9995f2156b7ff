"""Test-only agents for the Ray tests: one kills its own Ray worker process once per Ray job
(to check retries), one raises (to check that a task's error fails the evaluation at once)."""
from __future__ import annotations

import os
import signal
import tempfile

from parlor.agents.base import RandomAgent


def kill_marker() -> str:
    """The file whose existence says the kill happened (one per Ray job), in the test session's
    own folder (``PARLOR_TEST_MARKS``, set by the ``ray_cluster`` fixture for its workers)."""
    import ray

    folder = os.environ.get("PARLOR_TEST_MARKS", tempfile.gettempdir())
    return os.path.join(folder, f"parlor-kill-once-{ray.get_runtime_context().get_job_id()}")


class KillOnce(RandomAgent):
    """Plays like RandomAgent; in a Ray worker, its first decision after its third reset kills the
    process with SIGKILL (as the OOM killer or a lost node would), once per Ray job."""

    def __init__(self, game=None, seed=None):
        super().__init__(game, seed)
        self.resets = 0

    def reset(self, seed=None):
        super().reset(seed)
        self.resets += 1

    def act(self, observation, action_mask, view, sample_world=None):
        import ray

        in_worker = ray.is_initialized() and ray.get_runtime_context().worker.mode == ray.WORKER_MODE
        if self.resets >= 3 and in_worker and not os.path.exists(kill_marker()):
            open(kill_marker(), "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return super().act(observation, action_mask, view, sample_world)


class Faulty(RandomAgent):
    """Raises on its first decision, wherever it plays."""

    def act(self, observation, action_mask, view, sample_world=None):
        raise RuntimeError("Faulty agent: this error must reach the caller")


class NoDisk(RandomAgent):
    """Raises OSError on its first decision, as a worker whose disk is full or gone would."""

    def act(self, observation, action_mask, view, sample_world=None):
        raise FileNotFoundError(2, "No such file or directory", "/gone/on/the/worker")
