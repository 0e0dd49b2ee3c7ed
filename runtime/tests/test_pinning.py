"""Pinned runs (STAGECRAFT_RUNTIME_CPUS), as the closed loop measures: each rank on its own core
with one torch thread, the losses still the single-device run's; a bad CPU list is refused."""
import os

import pytest

from stagecraft_runtime.launch import LaunchError, launch

HERE = os.path.dirname(os.path.abspath(__file__))
PLAN = os.path.join(HERE, "plans", "1f1b-p4-m8.json")


def test_ranks_pinned_to_cores_still_match_the_single_device_run(monkeypatch):
    monkeypatch.setenv("STAGECRAFT_RUNTIME_CPUS", "0")
    (r,) = launch([PLAN], {"steps": 1, "timeout": 20})
    assert r["equal"] and r["maxRelDiff"] < 1e-12, r


def test_a_cpu_list_that_is_not_numbers_is_refused_naming_the_variable(monkeypatch):
    monkeypatch.setenv("STAGECRAFT_RUNTIME_CPUS", "0,one")
    with pytest.raises(LaunchError, match=r"STAGECRAFT_RUNTIME_CPUS: expected CPU numbers .*'0,one'"):
        launch([PLAN], {"steps": 1, "timeout": 10})
