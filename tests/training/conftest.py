"""One local Ray instance (2 CPUs) per test session, for every test that asks for it.

The Ray tests carry ``pytest.mark.xdist_group("ray")`` and ``make test`` runs pytest with
``--dist loadgroup``, so they all run in one xdist worker and Ray starts once."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def ray_cluster():
    ray = pytest.importorskip("ray", reason="the [scale] extra (ray) is not installed")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()
