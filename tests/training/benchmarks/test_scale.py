"""The arithmetic of ``parlor bench --scale`` (the speeds themselves are measured, not tested)."""
from __future__ import annotations

import pytest

from parlor.training.benchmarks import scale


def test_step_costs_invert_the_model_and_the_cluster_estimate_applies_it() -> None:
    sample, serial = 4e-3, 1e-3  # seconds per step: one core's sampling, the learner's side
    def throughput(runners: int) -> float:
        return 1 / (sample / runners + serial)

    run = {"steps": 4096.0, "seconds": 4096 / throughput(1), "sample_s": sample * scale.ROLLOUT,
           "learner_s": serial * scale.ROLLOUT}
    assert scale.step_costs(run) == pytest.approx((sample, serial))
    assert scale.cluster_estimate(sample, serial, cores=2) == pytest.approx(throughput(1))
    assert scale.cluster_estimate(sample, serial, cores=9) == pytest.approx(throughput(8))
    assert scale.cluster_estimate(sample, serial, cores=10**6) < 1 / serial  # Amdahl: the learner bounds it


@pytest.mark.parametrize("runners", [0, 1, 2, 4])
def test_every_trainer_updates_on_the_same_batch(runners) -> None:
    config = scale.train_config("tonk_v0", {"num_players": 2}, "rllib", runners)
    assert config.ppo.n_steps * config.n_envs * max(1, runners) == scale.ROLLOUT
    sb3 = scale.train_config("tonk_v0", {"num_players": 2}, "sb3")
    assert sb3.ppo.n_steps * sb3.n_envs == scale.ROLLOUT and sb3.rllib is None
