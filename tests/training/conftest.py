"""One local Ray instance (2 CPUs) per test session, for every test that asks for it.

The Ray tests carry ``pytest.mark.xdist_group("ray")`` and ``make test`` runs pytest with
``--dist loadgroup``, so they all run in one xdist worker and Ray starts once. Starting Ray
and working on it take minutes on a small machine, so every test that asks for
:func:`ray_cluster` is ``slow``: ``make test-all`` runs them, ``make test`` leaves them out
(their modules keep fast tests of their own: configs, flags and error messages)."""
from __future__ import annotations

import os

import pytest

MARKS_VARIABLE = "PARLOR_TEST_MARKS"  # where test agents in Ray workers leave their marks (tests/.../ray_agents.py)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # a test that asks for the Ray instance, itself or through another fixture (a test that
    # starts Ray on demand, with request.getfixturevalue, carries the slow mark itself)
    for item in items:
        if "ray_cluster" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


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
