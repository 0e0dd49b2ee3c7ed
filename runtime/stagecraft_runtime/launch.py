"""Runs plans on one machine: one process per device on 127.0.0.1 with a free port, watched so that
a process that fails or dies ends the whole run at once (its error named, the others stopped, no
orphans), then the single-device reference and the comparison."""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

import torch

from . import backend
from .plan import device_count, load
from .verdict import judge


class LaunchError(Exception):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(plans, opts):
    loaded = [load(p) for p in plans]
    # Refused here, before any process starts (NCCL asked for on a machine without CUDA).
    backend.from_environment(opts.get("backend", "auto"))
    cpus = _pinned_cpus()
    world = max(device_count(p) for p in loaded)
    out_dir = tempfile.mkdtemp(prefix="stagecraft-run-")
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()), WORLD_SIZE=str(world))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.dirname(os.path.dirname(__file__)), env.get("PYTHONPATH")]))
    args = [sys.executable, "-m", "stagecraft_runtime", "--worker", out_dir, "--options", json.dumps(opts), *plans]
    procs = []
    for r in range(world):
        err = open(os.path.join(out_dir, f"rank{r}.err"), "w+")
        status = os.path.join(out_dir, f"rank{r}.status")
        rank_env = dict(env, RANK=str(r), LOCAL_RANK=str(r), STAGECRAFT_RUNTIME_STATUS=status)
        rank_args = args
        if cpus:
            # Measuring: each rank on its own core with one torch thread, so ranks do not share one.
            # taskset execs the worker in its own process, which keeps the parent-death signal.
            rank_args = ["taskset", "-c", cpus[r % len(cpus)], *args]
            rank_env["OMP_NUM_THREADS"] = "1"
        procs.append((subprocess.Popen(rank_args, env=rank_env, stdout=subprocess.DEVNULL, stderr=err,
                                       preexec_fn=_die_with_launcher), err))
    _watch(procs, opts.get("timeout", 30.0) * 4 + 60 * len(plans))
    out = []
    for pi, plan in enumerate(loaded):
        ranks = [torch.load(os.path.join(out_dir, f"plan{pi}.rank{r}.pt")) for r in range(world)]
        out.append(report(plan, ranks, opts))
    return out


def die_with_parent(sig):
    """Linux: the kernel sends this process `sig` when its parent dies, however the parent dies
    (SIGKILL included), so a run never leaves orphans behind. Elsewhere a no-op: the launcher's
    own cleanup below still stops the workers."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, sig)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent died before the line above took effect
        os._exit(1)


def _die_with_launcher():
    """In each worker before it starts."""
    die_with_parent(signal.SIGKILL)


def _pinned_cpus():
    """STAGECRAFT_RUNTIME_CPUS="0,1": rank r runs under `taskset -c` on the (r mod n)-th listed CPU."""
    given = os.environ.get("STAGECRAFT_RUNTIME_CPUS", "").strip()
    if not given:
        return []
    cpus = [c.strip() for c in given.split(",")]
    if not all(c.isdigit() for c in cpus):
        raise LaunchError(f"STAGECRAFT_RUNTIME_CPUS: expected CPU numbers separated by commas, got {given!r}")
    return cpus


def _watch(procs, limit):
    start = time.monotonic()
    try:
        while True:
            codes = [p.poll() for p, _ in procs]
            failed = [r for r, c in enumerate(codes) if c not in (None, 0)]
            if failed:
                # Let the others notice and report for a moment, then name the first failure.
                end = time.monotonic() + 1.0
                while time.monotonic() < end and any(p.poll() is None for p, _ in procs):
                    time.sleep(0.02)
                codes = [p.poll() for p, _ in procs]
                errors = [(_last_error(procs[r][1], c), r) for r, c in enumerate(codes) if c not in (None, 0)]
                (stamp, message), r = min(errors)
                raise LaunchError(f"device {r} exited with code {codes[r]}: {message}")
            if all(c == 0 for c in codes):
                return
            if time.monotonic() - start > limit:
                raise LaunchError(f"the run did not end within {limit:.0f} s")
            time.sleep(0.02)
    finally:
        for p, err in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 5
        for p, err in procs:
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            err.close()


def _last_error(f, code):
    """(time, message) of a worker's error line. One killed by a signal before it could say
    anything was stopped from outside: it comes first, since its peers only report losing it."""
    f.flush()
    f.seek(0)
    lines = [ln.strip() for ln in f.read().splitlines() if ln.strip()]
    for ln in reversed(lines):
        if ln.startswith("error@"):
            stamp, _, message = ln[len("error@") :].partition(": ")
            return float(stamp), message
    if code < 0:
        return float("-inf"), f"killed by signal {-code}{_last_issued(f.name)} (no error of its own)"
    return float("inf"), (lines or ["no output"])[-1]


def _last_issued(err_path):
    """' after issuing <id> (step s)' from the device's status file, or '' when it has none."""
    try:
        with open(err_path.replace(".err", ".status"), "rb") as f:
            note = f.read(256).split(b"\0", 1)[0].decode(errors="replace")
    except OSError:
        return ""
    return f" after issuing {note}" if note else ""


def report(plan, ranks, opts):
    figures = judge(plan, ranks, opts)
    steps = opts.get("steps", 3)
    step_ms = [max(r["stepMs"][s] for r in ranks) for s in range(steps)]
    return {
        "devices": len(ranks),
        "backend": ranks[0].get("backend", "gloo"),
        "steps": steps,
        "loss": ranks[0]["loss"],
        "referenceLoss": figures["referenceLoss"],
        "maxAbsDiff": figures["maxAbsDiff"],
        "maxRelDiff": figures["maxRelDiff"],
        "tolerance": figures["tolerance"],
        "equal": figures["equal"],
        "worst": figures["worst"],
        "referenceBatch": figures["referenceBatch"],
        "stepMs": step_ms,
        # Per device, bytes held in the last step: parameters and optimizer state at its end, the
        # most gradient held when a backward or UPD started, the most parameter (gathered copies too).
        "memory": [dict(r.get("memory", {}), device=r["rank"]) for r in ranks],
        "trace": {r["rank"]: r["trace"] for r in ranks} if opts.get("trace") else None,
    }
