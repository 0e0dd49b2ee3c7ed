"""Plans the runtime cannot run are refused before any process starts, naming what is wrong."""
import json
import os

import pytest

from stagecraft_runtime.launch import LaunchError, launch
from stagecraft_runtime.plan import PlanError, check

HERE = os.path.dirname(os.path.abspath(__file__))


def plan(name="1f1b-p4-m8"):
    with open(os.path.join(HERE, "plans", f"{name}.json"), encoding="utf-8") as f:
        return json.load(f)


def test_a_version_1_plan_is_refused_with_the_reason():
    p = plan()
    p["format"] = "stagecraft/plan@1"
    with pytest.raises(PlanError, match=r'format: expected "stagecraft/plan@2".*recompile'):
        check(p)


def test_a_plan_missing_a_field_the_runtime_reads_names_its_path():
    p = plan()
    del p["devices"][1]["streams"][0]["instructions"][0]["block"]
    with pytest.raises(PlanError, match=r"devices\[1\]\.streams\[0\]\.instructions\[0\]\.block: missing"):
        check(p)


def test_a_killed_process_ends_the_run_naming_the_device(tmp_path):
    p = plan()
    # A RECV whose tensor names a block the model lacks makes device 1 fail on its first step.
    for ins in p["devices"][1]["streams"][0]["instructions"]:
        if ins["op"] == "F":
            ins["block"] = 1
            ins["microbatch"] = 99
            break
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(p))
    with pytest.raises(LaunchError, match=r"device 1 exited .*F\.b1\.mb0"):
        launch([str(path)], {"steps": 1, "timeout": 10})
