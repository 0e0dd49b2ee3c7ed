"""Before launching: a world size the machine cannot hold, tensors that would not fit in memory, a
batch header the instructions contradict and devices that cannot agree are each refused with their
numbers before any process starts; after: the run's folder goes unless the run failed or --keep,
a diverged loss is said as such, and Ctrl-C ends the run with one line."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import pytest

from stagecraft_runtime.agreement import check_agreement
from stagecraft_runtime.launch import LaunchError, launch
from stagecraft_runtime.plan import PlanError, device_count
from stagecraft_runtime.preflight import GIB, check_batch, check_memory, check_world

HERE = os.path.dirname(os.path.abspath(__file__))
PLANS = sorted(f[:-5] for f in os.listdir(os.path.join(HERE, "plans")) if f.endswith(".json"))


def plan(name="1f1b-p4-m8"):
    with open(os.path.join(HERE, "plans", f"{name}.json"), encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture
def strict(monkeypatch):
    """The launcher as a user meets it: no oversubscription allowed from the environment."""
    monkeypatch.delenv("STAGECRAFT_RUNTIME_OVERSUBSCRIBE", raising=False)


def test_more_devices_than_cpus_are_refused_with_both_numbers_unless_oversubscribing(strict):
    with pytest.raises(LaunchError, match=r"the plan runs on 8192 devices, one process each, and this machine has 2 CPUs: .*--oversubscribe"):
        check_world(8192, "gloo", {}, cpus=2)
    with pytest.raises(LaunchError, match=r"on 4 devices, .* has 2 GPUs"):
        check_world(4, "nccl", {}, gpus=2)
    check_world(4, "gloo", {}, cpus=4)
    check_world(8192, "gloo", {"oversubscribe": True}, cpus=2)


def test_the_launcher_refuses_a_plan_wider_than_the_machine_before_starting_anything(strict, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    cpus = len(os.sched_getaffinity(0))
    if cpus >= 4:
        pytest.skip("this machine holds the test plan's 4 processes")
    with pytest.raises(LaunchError, match=rf"1f1b-p4-m8\.json: the plan runs on 4 devices, .* has {cpus} CPUs"):
        launch([os.path.join(HERE, "plans", "1f1b-p4-m8.json")], {"steps": 1})
    assert os.listdir(tmp_path) == []  # not even a run folder


@pytest.mark.parametrize("name", PLANS)
def test_every_test_plan_fits_in_a_gigabyte_and_agrees_with_its_header_and_across_devices(name):
    p = plan(name)
    check_batch(p)
    check_memory(p, {"width": 16}, device_count(p), "gloo", available=GIB)
    check_agreement(p, device_count(p))


@pytest.mark.parametrize(
    "change, opts, message",
    [
        (lambda p: None, {"width": 65536}, r"the 4 devices would hold 1.02e\+03 GiB of tensors together \(device \d the most: 256 GiB\) with --hidden 65536"),
        (lambda p: p["batch"].update(microbatchSize=30_000_000), {}, r"GiB of tensors .* microbatchSize 30000000, more than the 64 GiB of memory available"),
        (lambda p: p["model"]["blocks"][1].update(experts=10_000_000), {}, r"GiB of tensors"),
    ],
    ids=["hidden-65536", "microbatch-size-3e7", "experts-1e7"],
)
def test_tensors_larger_than_the_available_memory_are_refused_with_the_numbers(change, opts, message):
    p = plan()
    change(p)
    with pytest.raises(LaunchError, match=message):
        check_memory(p, {"width": 16, **opts}, 4, "gloo", available=64 * GIB)


def test_the_memory_needed_grows_with_hidden_and_the_dtype():
    p = plan()
    check_memory(p, {"width": 1024, "dtype": "float32"}, 4, "gloo", available=2 * GIB)
    with pytest.raises(LaunchError, match=r"float|GiB"):
        check_memory(p, {"width": 1024, "dtype": "float64"}, 4, "gloo", available=GIB // 4)


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("microbatches", 10**12, r"batch\.microbatches: 1000000000000, but the plan's forwards run microbatches 0 to 7"),
        ("replicas", 10**9, r"batch\.replicas: 1000000000 data-parallel replicas, but the largest group has 1 devices"),
        ("replicas", 0, r"batch\.replicas: expected a positive integer, got 0"),
        ("microbatches", 2.5, r"batch\.microbatches: expected a positive integer, got 2\.5"),
    ],
)
def test_a_batch_header_the_instructions_contradict_is_refused(key, value, message):
    p = plan()
    p["batch"][key] = value
    with pytest.raises(LaunchError, match=message):
        check_batch(p)


def _drop(p, device, op, first=True):
    """Removes device's first instruction of `op` (and the waits on it); returns its id."""
    for stream in p["devices"][device]["streams"]:
        for k, ins in enumerate(stream["instructions"]):
            if ins["op"] == op:
                del stream["instructions"][k]
                for s in p["devices"][device]["streams"]:
                    for i in s["instructions"]:
                        i["waits"] = [w for w in i["waits"] if w != ins["id"]]
                return ins
    raise AssertionError(f"device {device} has no {op}")


def test_a_send_without_its_recv_is_refused_naming_the_send():
    p = plan()
    gone = _drop(p, 1, "RECV")
    with pytest.raises(PlanError, match=rf"\(SEND\S+, device 0\): SEND {gone['transfer']} to device 1 has no RECV there from device 0"):
        check_agreement(p, 4)


def test_a_recv_without_its_send_is_refused_naming_the_recv():
    p = plan()
    gone = _drop(p, 0, "SEND")
    with pytest.raises(PlanError, match=rf"devices\[1\]\.streams\[\d\]\.instructions\[\d+\] \(RECV\S+, device 1\): RECV {gone['transfer']} from device 0 has no SEND"):
        check_agreement(p, 4)


def test_a_wait_on_an_unknown_id_is_refused_naming_the_instruction():
    p = plan()
    p["devices"][2]["streams"][0]["instructions"][3]["waits"].append("RECV.nowhere")
    with pytest.raises(PlanError, match=r"devices\[2\]\.streams\[0\]\.instructions\[3\] \(\S+, device 2\)\.waits: RECV\.nowhere is not an instruction of device 2"):
        check_agreement(p, 4)


def test_processes_started_as_torchrun_would_refuse_a_one_sided_collective_at_once_naming_it(tmp_path):
    p = plan("pp2-dp2")
    _drop(p, 3, "ALL_REDUCE")
    path = tmp_path / "one-sided.json"
    path.write_text(json.dumps(p))
    env = dict(os.environ, WORLD_SIZE="4", MASTER_ADDR="127.0.0.1", MASTER_PORT="1")
    start = time.monotonic()
    procs = [
        subprocess.Popen([sys.executable, "-m", "stagecraft_runtime", str(path), "--steps", "1"],
                         env=dict(env, RANK=str(r), LOCAL_RANK=str(r)), cwd=os.path.dirname(HERE),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for r in range(4)
    ]
    results = [p.communicate(timeout=120) for p in procs]
    # Well before the 30 s no-progress timeout, and before any process group is joined (port 1:
    # joining would fail with another message).
    assert time.monotonic() - start < 20
    for proc, (_out, err) in zip(procs, results):
        assert proc.returncode == 1
        assert "Traceback" not in err
        assert "over devices [1, 3] is never issued by device(s) [3]" in err, err


def test_processes_started_as_torchrun_refuse_a_world_size_other_than_the_plans(tmp_path):
    env = dict(os.environ, RANK="0", LOCAL_RANK="0", WORLD_SIZE="2", MASTER_ADDR="127.0.0.1", MASTER_PORT="1")
    r = subprocess.run([sys.executable, "-m", "stagecraft_runtime", os.path.join(HERE, "plans", "1f1b-p4-m8.json")],
                       env=env, cwd=os.path.dirname(HERE), capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    assert "the plan runs on 4 devices, and torchrun started 2 (WORLD_SIZE)" in r.stderr


def test_a_run_leaves_no_folder_behind_and_a_failed_one_keeps_its_folder_naming_it(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    launch([os.path.join(HERE, "plans", "1f1b-p4-m8.json")], {"steps": 1})
    assert os.listdir(tmp_path) == []
    p = plan()
    p["batch"]["lossScale"] = 1e39  # past float32's largest value (float64, the default, holds it): Infinity
    path = tmp_path / "diverging.json"
    path.write_text(json.dumps(p))
    with pytest.raises(LaunchError, match=r"diverging\.json: the run diverged: its loss is inf at step 0 \(batch\.lossScale 1e\+39\) \(the run's files are kept in (\S+)\)") as e:
        launch([str(path)], {"steps": 1, "dtype": "float32"})
    kept = e.value.args[0].rsplit(" ", 1)[1].rstrip(")")
    assert os.path.isdir(kept) and os.listdir(kept)


def test_keep_keeps_the_folder_of_a_run_that_succeeds_and_prints_its_path(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    launch([os.path.join(HERE, "plans", "1f1b-p4-m8.json")], {"steps": 1, "keep": True})
    (kept,) = os.listdir(tmp_path)
    assert f"the run's files are kept in {tmp_path / kept}" in capsys.readouterr().err


def test_ctrl_c_ends_the_run_with_one_line_and_no_process_left(tmp_path):
    env = dict(os.environ, TMPDIR=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "stagecraft_runtime", os.path.join(HERE, "plans", "1f1b-p4-m8.json"),
                             "--steps", "1000"], env=env, cwd=os.path.dirname(HERE), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=_interruptible)
    try:
        deadline = time.monotonic() + 90
        while not _workers_started(tmp_path) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _workers_started(tmp_path), "the run never started its workers"
        # As a terminal's Ctrl-C does: SIGINT to the whole foreground process group.
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert err == "interrupted\n"
    assert proc.returncode == 130
    assert out == ""
    assert os.listdir(tmp_path) == []  # the run's folder went too


def _interruptible():
    """Ctrl-C's default action back for the run: a shell that started the tests in the background
    (or a CI runner) may have left SIGINT ignored, which a child inherits."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _workers_started(tmp):
    """Whether every worker of the run in `tmp` has issued an instruction (its status file)."""
    for run in os.listdir(tmp):
        statuses = [os.path.join(tmp, run, f) for f in os.listdir(os.path.join(tmp, run)) if f.endswith(".status")]
        if len(statuses) == 4 and all(_issued(s) for s in statuses):
            return True
    return False


def _issued(path):
    try:
        with open(path, "rb") as f:
            return f.read(1) not in (b"", b"\0")
    except OSError:
        return False


def lowered_once(name="mesh-dp2-tp2"):
    """The mesh plan as a group lowered once: device 0's program, run by 1, 2 and 3 as replicas."""
    p = plan(name)
    p["devices"] = [dict(p["devices"][0], replicas=[1, 2, 3])]
    return p


def test_a_group_lowered_once_agrees_and_a_replica_left_out_of_its_own_sub_group_is_refused():
    p = lowered_once()
    check_agreement(p, 4)
    for stream in p["devices"][0]["streams"]:
        for ins in stream["instructions"]:
            if ins["id"] == "ALL_REDUCE.tp.F.b0.mb0":
                ins["devices"] = [0, 3]  # across both axes: every member computes [0, 3]
    with pytest.raises(PlanError, match=r"devices\[0\]\.streams\[\d\]\.instructions\[\d+\] \(ALL_REDUCE\.tp\.F\.b0\.mb0, "
                                        r"device 1\)\.devices: \[0, 3\] does not include the device itself"):
        check_agreement(p, 4)


def test_a_replica_whose_sub_group_member_is_not_in_the_run_is_refused_naming_it():
    p = lowered_once()
    with pytest.raises(PlanError, match=r"\(ALL_REDUCE\.grads\.d0\.k0, device 0\): collective ALL_REDUCE\.grads\.d0\.k0\[tp=0\] "
                                        r"over devices \[0, 2\] is never issued by device\(s\) \[2\]"):
        check_agreement(p, 2)  # devices 2 and 3 not started
