"""Runs plans on one machine: checked first (preflight.py, agreement.py), then one process per
device on 127.0.0.1 with a free port, watched so that a process that fails or dies ends the whole
run at once (its error named, the others stopped, no orphans), then the single-device reference
and the comparison. The run's folder goes when the run succeeds; a failed run keeps it (its path
in the error) for the devices' error files."""
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import torch

from . import backend
from .agreement import check_agreement
from .plan import device_count, load
from .preflight import LaunchError, preflight
from .verdict import judge

__all__ = ["LaunchError", "launch", "die_with_parent"]

# Where the package was imported from: workers start there, so `-m stagecraft_runtime` finds the
# same code whether it was installed (`pip install -e runtime`) or run from a checkout.
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(plans, opts):
    plans = [os.path.abspath(p) for p in plans]
    loaded = [load(p) for p in plans]
    # Refused here, before any process starts (NCCL asked for on a machine without CUDA).
    chosen = backend.from_environment(opts.get("backend", "auto"))
    cpus = _pinned_cpus()
    world = max(device_count(p) for p in loaded)
    for path, plan in zip(plans, loaded):
        try:
            preflight(plan, opts, world, chosen.name)
            check_agreement(plan, world)
        except LaunchError as e:
            raise LaunchError(f"{os.path.basename(path)}: {e}") from None
    out_dir = tempfile.mkdtemp(prefix="stagecraft-run-")
    try:
        out = _run(plans, loaded, opts, world, cpus, out_dir)
    except BaseException as e:
        if isinstance(e, LaunchError):
            raise LaunchError(f"{e} (the run's files are kept in {out_dir})") from None
        if not isinstance(e, (KeyboardInterrupt, SystemExit)) or opts.get("keep"):
            raise
        shutil.rmtree(out_dir, ignore_errors=True)
        raise
    if opts.get("keep"):
        print(f"the run's files are kept in {out_dir}", file=sys.stderr)
    else:
        shutil.rmtree(out_dir, ignore_errors=True)
    return out


def _run(plans, loaded, opts, world, cpus, out_dir):
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()), WORLD_SIZE=str(world))
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
                                       cwd=PACKAGE_ROOT, preexec_fn=_die_with_launcher), err))
    limit = opts.get("timeout", 30.0) * 4 + 60 * len(plans)
    _watch(procs, limit)
    out = []
    for pi, plan in enumerate(loaded):
        ranks = [torch.load(os.path.join(out_dir, f"plan{pi}.rank{r}.pt")) for r in range(world)]
        with _deadline(limit, "the single-device reference"):
            result = report(plan, ranks, opts)
        _check_finite(result, plan, plans[pi])
        out.append(result)
    return out


def _check_finite(result, plan, path):
    """A loss that became Infinity or NaN is a diverged run, said as such (JSON has no Infinity)."""
    for key, who in (("loss", "the run"), ("referenceLoss", "the single-device reference")):
        for step, loss in enumerate(result[key]):
            if not math.isfinite(loss):
                raise LaunchError(
                    f"{os.path.basename(path)}: {who} diverged: its loss is {loss} at step {step} "
                    f"(batch.lossScale {plan['batch']['lossScale']})"
                )


class _deadline:
    """Ends what runs inside after `seconds` with a LaunchError naming it (SIGALRM: main thread only)."""

    def __init__(self, seconds, what):
        self.seconds, self.what = seconds, what

    def _fire(self, _sig, _frame):
        raise LaunchError(f"{self.what} did not end within {self.seconds:.0f} s")

    def __enter__(self):
        try:
            self.previous = signal.signal(signal.SIGALRM, self._fire)
        except ValueError:  # not the main thread: the caller's own limits apply
            self.previous = None
            return
        signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *exc):
        if self.previous is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)


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
