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


def test_a_plan_newer_than_version_3_is_refused_at_format():
    p = plan()
    p["format"] = "stagecraft/plan@4"
    with pytest.raises(PlanError, match=r'format: expected "stagecraft/plan@2" or "stagecraft/plan@3", got "stagecraft/plan@4"'):
        check(p)


def test_a_version_3_plan_whose_mesh_does_not_hold_its_group_is_refused_naming_it():
    p = plan("mesh-dp2-tp2")
    p["meshes"][0]["shape"] = [2, 3]
    with pytest.raises(PlanError, match=r"meshes\[0\]\.shape: \[2, 3\] holds 6 members, group 0 has 4"):
        check(p)
    del p["meshes"]
    with pytest.raises(PlanError, match=r"meshes: expected one entry"):
        check(p)


def test_a_plan_missing_a_field_the_runtime_reads_names_its_path():
    p = plan()
    del p["devices"][1]["streams"][0]["instructions"][0]["block"]
    with pytest.raises(PlanError, match=r"devices\[1\]\.streams\[0\]\.instructions\[0\]\.block: missing"):
        check(p)


def test_a_process_that_throws_ends_the_run_within_30_s_naming_the_device_and_instruction(tmp_path):
    import time

    p = plan()
    # An F of a microbatch whose input has not come yet makes device 1 raise on its first step.
    for ins in p["devices"][1]["streams"][0]["instructions"]:
        if ins["op"] == "F":
            ins["block"] = 1
            ins["microbatch"] = 7
            break
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(p))
    start = time.monotonic()
    with pytest.raises(LaunchError, match=r"device 1 exited .*F\.b1\.mb0"):
        launch([str(path)], {"steps": 1, "timeout": 10})
    assert time.monotonic() - start < 30


def test_a_process_killed_mid_step_ends_the_run_at_once_naming_it(monkeypatch):
    import time

    monkeypatch.setenv("STAGECRAFT_RUNTIME_KILL", "2:B.b2.mb0")
    start = time.monotonic()
    with pytest.raises(LaunchError, match=r"device 2 exited with code -9: killed by signal 9 after issuing B\.b2\.mb0 \(step 0\)"):
        launch([os.path.join(HERE, "plans", "1f1b-p4-m8.json")], {"steps": 1, "timeout": 10})
    assert time.monotonic() - start < 30


def test_a_collective_a_member_never_issues_is_refused_before_launch_naming_the_group_and_the_missing_member(tmp_path):
    p = plan("pp2-dp2")
    # Device 3 loses its gradient all-reduce: device 1 would wait in it for a member that never comes.
    gone = set()
    for stream in p["devices"][3]["streams"]:
        gone |= {i["id"] for i in stream["instructions"] if i["op"] == "ALL_REDUCE"}
        stream["instructions"] = [i for i in stream["instructions"] if i["op"] != "ALL_REDUCE"]
    for stream in p["devices"][3]["streams"]:
        for i in stream["instructions"]:
            i["waits"] = [w for w in i["waits"] if w not in gone]
    path = tmp_path / "lost.json"
    path.write_text(json.dumps(p))
    with pytest.raises(PlanError, match=r"devices\[1\]\.streams\[\d\]\.instructions\[\d+\] \(ALL_REDUCE\S+, device 1\): "
                                         r"collective \S+ over devices \[1, 3\] is never issued by device\(s\) \[3\]"):
        launch([str(path)], {"steps": 1, "timeout": 3})


def _children(pid):
    """Live processes whose parent is `pid`."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry))
    return out


def _issued(pid):
    """Whether a worker has issued an instruction: the status file named in its environment."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            env = dict(e.split(b"=", 1) for e in f.read().split(b"\0") if b"=" in e)
        with open(env[b"STAGECRAFT_RUNTIME_STATUS"], "rb") as f:
            return f.read(1) not in (b"", b"\0")
    except (OSError, KeyError):
        return False


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc to find the workers")
def test_a_run_whose_starter_is_killed_mid_run_leaves_no_launcher_or_worker_behind():
    """What `stagecraft run` killed with SIGKILL looks like: the process that started the launcher
    dies without a word; the launcher follows it, and the workers follow the launcher."""
    import shlex
    import signal
    import subprocess
    import sys
    import time

    env = dict(os.environ)
    plan_file = os.path.join(HERE, "plans", "1f1b-p4-m8.json")
    command = shlex.join([sys.executable, "-m", "stagecraft_runtime", plan_file, "--steps", "1000"])
    starter = subprocess.Popen(["sh", "-c", f"{command}; true"], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, cwd=os.path.dirname(HERE))
    try:
        deadline = time.monotonic() + 60
        launchers, workers = [], []
        while len(workers) < 4 and time.monotonic() < deadline:
            time.sleep(0.2)
            launchers = _children(starter.pid)
            workers = [w for pid in launchers for w in _children(pid)]
        assert len(launchers) == 1 and len(workers) == 4, "the launcher never started its 4 workers"
        # Mid-run: every worker has issued an instruction (noted in its status file).
        while not all(_issued(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert all(_issued(w) for w in workers), "the workers never started a step"
        starter.send_signal(signal.SIGKILL)
        starter.wait()
        deadline = time.monotonic() + 15
        while any(_alive(p) for p in launchers + workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p for p in launchers + workers if _alive(p)], "processes outlived the run's starter"
    finally:
        if starter.poll() is None:
            starter.kill()


def test_a_zero3_plan_whose_gathers_and_reduce_scatters_disagree_on_the_layout_is_refused():
    p = plan("pp2-dp2-zero3")
    for stream in p["devices"][0]["streams"]:
        for ins in stream["instructions"]:
            if ins["op"] == "REDUCE_SCATTER":
                ins["params"] = [0, 1]
    with pytest.raises(PlanError, match=r"devices\[0\]: ALL_GATHER\.F\.b0\.mb0 gathers blocks \[0\] but "
                                        r"REDUCE_SCATTER\.grads\.d0\.k0\.mb0 shards the gradients of blocks \[0, 1\]"):
        check(p)
