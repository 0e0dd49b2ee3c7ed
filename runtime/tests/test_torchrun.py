"""Under torchrun each process is one device (RANK = plan device) with no launcher: the entry
point joins the process group from the environment torchrun sets, and device 0 reports the steps.
torchrun itself is replaced by the environment it would set (Debian's 1.13 torchrun fails on
Python 3.11 before starting any worker)."""
import json
import os
import socket
import subprocess
import sys

from stagecraft_runtime.model import Setup
from stagecraft_runtime.plan import load
from stagecraft_runtime.reference import run_reference

HERE = os.path.dirname(os.path.abspath(__file__))


def test_processes_started_as_torchrun_would_train_as_one_device():
    plan_path = os.path.join(HERE, "plans", "zb-h1-p4-m8.json")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = []
    for rank in range(4):
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE="4", MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=str(port))
        cmd = [sys.executable, "-m", "stagecraft_runtime", plan_path, "--steps", "2", "--json"]
        # From the package's folder, as `python -m` finds it in a checkout (or anywhere once installed).
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                      cwd=os.path.dirname(HERE)))
    outs = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
            outs.append(out)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    report = json.loads(outs[0].strip().splitlines()[-1])
    assert all(not o.strip() for o in outs[1:])
    import torch

    reference, _gradients, _params = run_reference(Setup(load(plan_path), dtype=torch.float64), 2)
    assert report["devices"] == 4
    for loss, ref in zip(report["loss"], reference):
        assert abs(loss - ref) <= 1e-12 * abs(ref)
