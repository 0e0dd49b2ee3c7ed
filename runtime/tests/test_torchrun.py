"""Under torchrun each process is one device (RANK = plan device) with no launcher: the entry
point joins the process group from the environment torchrun sets, and device 0 reports the steps.
torchrun itself is replaced by the environment it would set (Debian's 1.13 torchrun fails on
Python 3.11 before starting any worker)."""
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from stagecraft_runtime.interrupts import interrupted
from stagecraft_runtime.model import Setup
from stagecraft_runtime.plan import load
from stagecraft_runtime.reference import run_reference

HERE = os.path.dirname(os.path.abspath(__file__))


def as_torchrun(plan_path, *args, world=4, interrupt_after=None):
    """(exit code, stdout, stderr) of each of `world` processes started with torchrun's environment;
    with `interrupt_after` (s), Ctrl-C sent to each then."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = []
    for rank in range(world):
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=str(port))
        cmd = [sys.executable, "-m", "stagecraft_runtime", plan_path, *args]
        # From the package's folder, as `python -m` finds it in a checkout (or anywhere once installed).
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                      cwd=os.path.dirname(HERE), preexec_fn=_interruptible))
    try:
        if interrupt_after is not None:
            time.sleep(interrupt_after)
            for p in procs:
                p.send_signal(signal.SIGINT)
        outs = [p.communicate(timeout=120) for p in procs]
        return [(p.returncode, out, err) for p, (out, err) in zip(procs, outs)]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()


def _interruptible():
    """Ctrl-C's default action back: a shell that started the tests in the background (or a CI
    runner) may have left SIGINT ignored, which a child inherits."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_processes_started_as_torchrun_would_train_as_one_device():
    plan_path = os.path.join(HERE, "plans", "zb-h1-p4-m8.json")
    outs = []
    for code, out, err in as_torchrun(plan_path, "--steps", "2", "--json"):
        assert code == 0, err
        outs.append(out)
    report = json.loads(outs[0].strip().splitlines()[-1])
    assert all(not o.strip() for o in outs[1:])
    import torch

    reference, _gradients, _params = run_reference(Setup(load(plan_path), dtype=torch.float64), 2)
    assert report["devices"] == 4
    for loss, ref in zip(report["loss"], reference):
        assert abs(loss - ref) <= 1e-12 * abs(ref)


def test_a_loss_that_is_not_finite_under_torchrun_is_named_by_step_and_device(tmp_path):
    with open(os.path.join(HERE, "plans", "1f1b-p4-m8.json"), encoding="utf-8") as f:
        p = json.load(f)
    p["batch"]["lossScale"] = 1e39  # past float32's largest value: the loss is Infinity
    path = tmp_path / "diverging.json"
    path.write_text(json.dumps(p))
    results = as_torchrun(str(path), "--steps", "2", "--dtype", "float32", "--json")
    assert [code for code, _out, _err in results] == [1, 1, 1, 1]
    assert all(out == "" for _code, out, _err in results)  # no loss printed as `Infinity`
    assert results[0][2] == f"error: {path}: non-finite loss at step 0 on device 3\n"
    assert all(err == "" for _code, _out, err in results[1:])


@pytest.mark.parametrize("after", [0.3, 1.0, 8.0])  # while modules load, torch loads or the group forms; mid-run
def test_ctrl_c_under_torchrun_ends_every_process_with_one_line(after):
    results = as_torchrun(os.path.join(HERE, "plans", "1f1b-p4-m8.json"), "--steps", "100000", interrupt_after=after)
    assert results == [(130, "", "interrupted\n")] * 4


def test_torch_s_report_of_a_ctrl_c_is_an_interrupt_and_other_errors_are_not():
    # What torch 1.13 raises when SIGINT arrives while its C++ extension loads.
    assert interrupted(RuntimeError("KeyboardInterrupt: <EMPTY MESSAGE>"))
    assert interrupted(KeyboardInterrupt())
    assert not interrupted(RuntimeError("Connection reset by peer"))


def test_a_ctrl_c_inside_an_instruction_is_an_interrupt_however_the_run_named_the_failure():
    # Autograd's engine re-raises a SIGINT that arrived in a saved-tensor hook as a RuntimeError, which
    # the scheduler names by its instruction and the worker by its plan and step.
    from stagecraft_runtime.scheduler import RunError

    def named(cause, message):
        try:
            raise RunError(message) from cause
        except RunError as e:
            return e

    inner = named(RuntimeError("KeyboardInterrupt: <EMPTY MESSAGE>"), "device 3: B.b3.mb7 (B) failed")
    assert interrupted(named(inner, "1f1b-p4-m8.json: step 176: device 3: B.b3.mb7 (B) failed"))
    assert not interrupted(named(named(RuntimeError("Connection reset by peer"), "device 3: S failed"), "step 1"))
