"""`python3 -m stagecraft_runtime plan.json … [--steps n] [--dtype float32|float64] [--json]`.
Under torchrun (RANK and WORLD_SIZE set) this process is one device of the run, after checking
that the devices agree (agreement.py); otherwise it launches one process per device on this
machine and compares with the single-device reference. `--check` only reads each plan and says
whether this runtime accepts it, starting no process. Ctrl-C ends it with one line."""
import sys

# Nothing else is imported before `main`'s try: a Ctrl-C while modules load is one line too.
from .interrupts import interrupted


def main(argv=None):
    try:
        return _main(argv)
    except (KeyboardInterrupt, RuntimeError) as e:
        if not interrupted(e):
            raise
        # Also while torch loads; the launcher's cleanup has stopped the workers on the way out.
        # A second report of the same Ctrl-C (torch's C++ code may leave it pending) must not end
        # the exit with a traceback or a death by SIGINT.
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("interrupted", file=sys.stderr)
        return 130


def _main(argv):
    import argparse
    import json
    import os
    import signal

    from .plan import PlanError

    ap = argparse.ArgumentParser(prog="python3 -m stagecraft_runtime")
    ap.add_argument("plans", nargs="+")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--dtype", choices=["float32", "float64"], default="float64")
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--backend", choices=["auto", "gloo", "nccl"], default="auto",
                    help="nccl with CUDA tensors on cuda:<LOCAL_RANK>, gloo on the CPU; auto: nccl when CUDA is there")
    ap.add_argument("--trace", action="store_true", help="record every instruction's start and end")
    ap.add_argument("--reference-batch", help="the design's batch as JSON {microbatches, microbatchSize, replicas}: "
                    "the reference runs it instead of the one read off the plan's instructions")
    ap.add_argument("--check", action="store_true", help="accept or refuse each plan without running it")
    ap.add_argument("--oversubscribe", action="store_true",
                    help="start more processes than the machine has CPUs (GPUs with NCCL)")
    ap.add_argument("--keep", action="store_true", help="keep the run's folder (devices' files), and print its path")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--options", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    opts = json.loads(a.options) if a.options else {
        "steps": a.steps, "dtype": a.dtype, "width": a.width, "seed": a.seed, "timeout": a.timeout, "trace": a.trace,
        "json": a.json, "backend": a.backend, "oversubscribe": a.oversubscribe, "keep": a.keep,
    }
    if a.reference_batch:
        opts["referenceBatch"] = json.loads(a.reference_batch)
    if a.check:
        return _check(a.plans)
    under_torchrun = a.worker is None and "RANK" in os.environ and "WORLD_SIZE" in os.environ
    if under_torchrun:
        # Before torch loads: every process refuses at once, none joins a group its peers never will.
        try:
            _check_under_torchrun(a.plans, int(os.environ["WORLD_SIZE"]))
        except PlanError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    from .backend import BackendError

    try:
        if a.worker is not None or under_torchrun:
            from .worker import main as worker_main

            rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
            return worker_main(rank, world, a.plans, opts, a.worker)
        from .launch import LaunchError, die_with_parent, launch

        # The launcher goes when whatever started it goes (`stagecraft run` killed or past its
        # limit), and its workers with it: SIGTERM unwinds through the launcher's cleanup.
        signal.signal(signal.SIGTERM, _stopped)
        die_with_parent(signal.SIGTERM)
        try:
            results = launch(a.plans, opts)
        except LaunchError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        for path, r in zip(a.plans, results):
            if a.json:
                print(json.dumps(r))
            else:
                print(f"{path}: {r['devices']} devices, {r['steps']} steps; loss {r['loss']}; "
                      f"reference {r['referenceLoss']}; max rel diff {r['maxRelDiff']:.3g}; "
                      f"step ms {[round(x, 2) for x in r['stepMs']]}")
            if not r["equal"]:
                print(f"error: {path}: {not_equal(r)}", file=sys.stderr)
        return 0 if all(r["equal"] for r in results) else 1
    except (PlanError, BackendError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # one line naming what failed, never a stack trace for the user
        if interrupted(e):
            raise
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1


def not_equal(r):
    """The verdict of a run that differs from the reference, naming its worst tensors."""
    named = []
    for w in r["worst"]:
        where = "all devices" if w["device"] is None else f"device {w['device']}"
        what = w.get("problem") or f"relative difference {w['difference']:.3g}"
        named.append(f"{where}, {w['tensor']}, step {w['step']}: {what}")
    return f"differs from the single-device reference beyond {r['tolerance']:g}: " + "; ".join(named)


def _check(paths):
    """One line per plan: `ok: <path>` or `error: <path>: <why>`; exit 1 when any is refused."""
    from .plan import PlanError, load

    refused = 0
    for path in paths:
        try:
            load(path)
            print(f"ok: {path}", flush=True)
        except PlanError as e:
            refused += 1
            print(f"error: {path}: {e}", flush=True)
    return 1 if refused else 0


def _stopped(_sig, _frame):
    raise SystemExit(143)  # 128 + SIGTERM, as a shell reports it


def _check_under_torchrun(plans, world):
    """What `stagecraft run` proves before launching, proven in every process torchrun started:
    a plan whose devices cannot agree is refused by all of them at once, naming the instruction."""
    from .agreement import check_agreement
    from .plan import PlanError, device_count, load

    for path in plans:
        plan = load(path)
        need = device_count(plan)
        if need != world:
            raise PlanError(f"{path}: the plan runs on {need} devices, and torchrun started {world} (WORLD_SIZE)")
        try:
            check_agreement(plan, world)
        except PlanError as e:
            raise PlanError(f"{path}: {e}") from None


if __name__ == "__main__":
    code = main()
    if code == 130:
        # Interrupted mid-run, torch's C++ threads (gloo's, a pending work's) may still be alive:
        # the interpreter's teardown would destroy them joinable and abort ("terminate called
        # without an active exception", signal 6). Nothing is left to save, so skip it.
        sys.stdout.flush()
        sys.stderr.flush()
        import os

        os._exit(130)
    sys.exit(code)
