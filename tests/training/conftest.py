"""One local Ray instance (2 CPUs) per test session, for every test that asks for it.

The Ray tests carry ``pytest.mark.xdist_group("ray")`` and ``make test`` runs pytest with
``--dist loadgroup``, so they all run in one xdist worker and Ray starts once."""
from __future__ import annotations

import os

import pytest

MARKS_VARIABLE = "PARLOR_TEST_MARKS"  # where test agents in Ray workers leave their marks (tests/.../ray_agents.py)


@pytest.fixture(scope="session")
def ray_cluster(tmp_path_factory):
    ray = pytest.importorskip("ray", reason="the [scale] extra (ray) is not installed")
    # a folder of this session only: another test run on the machine (whose Ray job ids are the
    # same, 01000000 first) must not see or remove this one's marks
    marks = str(tmp_path_factory.mktemp("ray-marks"))
    os.environ[MARKS_VARIABLE] = marks
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
             runtime_env={"env_vars": {MARKS_VARIABLE: marks}})
    yield ray
    ray.shutdown()
