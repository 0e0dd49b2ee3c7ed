"""What a runtime's step costs per instruction, in wall time and in CPU time, for one or more
runtimes alternated on the same plans: on a machine shared with other work the wall time moves
with the load, the CPU the workers spend (the loop, the waiter threads, gloo's threads, the
compute) far less, so old and new code compare by CPU even when the wall figures do not.

Each plan runs on one process per device through the runtime's own worker (`worker.main`, what
`python -m stagecraft_runtime --worker` runs), with every `Device.step` timed by
`time.perf_counter` and `time.process_time` (all the process's threads); the first step (groups
connecting, caches) is left out.

    python3 bench/runtime-cpu.py [--steps 10] [--rounds 3] [--runtime DIR …] plan.json …

`--runtime` may be given several times (default: this checkout's runtime/); each round runs every
plan on every runtime in turn, so old and new alternate within seconds. Prints one line per run:
runtime, plan, median wall step ms, wall µs per instruction (median step ÷ the most instructions a
device issues), CPU µs per instruction (the devices' CPU over their instructions, steps 2…n, the
kernel's count per thread), and its parts: the thread that runs the issue loop and the compute,
inflight.py's waiter threads, every other thread (gloo's, torch's).

    python3 bench/runtime-cpu.py --json [--steps 30] [--runtime DIR] plan.json

runs the plan once and prints every device's steps as JSON, each with its wall time, CPU by kind,
instruction count and measured instructions ([stream, id, start s, end s]; the runtime's own trace
keeps only the last step's): what bench/runtime-overhead.ts reads.
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT_RUNTIME = os.path.join(os.path.dirname(HERE), "runtime")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def thread_cpu():
    """CPU seconds of each of this process's threads (the kernel's count, in ns, schedstat)."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                out[int(tid)] = int(f.read().split()[0]) / 1e9
        except OSError:  # a thread that ended meanwhile
            pass
    return out


def by_kind(before, after):
    """CPU seconds between two `thread_cpu` readings: the loop's thread, inflight's waiter threads,
    and every other (gloo's and torch's own threads)."""
    loop_id = threading.main_thread().native_id
    waiters = {t.native_id for t in threading.enumerate() if t.name == "stagecraft-inflight"}
    kinds = [0.0, 0.0, 0.0]
    for tid, t in after.items():
        spent = t - before.get(tid, 0.0)
        kinds[0 if tid == loop_id else 1 if tid in waiters else 2] += spent
    return kinds


def device(rank, world, plan, steps, dtype, width, traced):
    """One process: the runtime's worker with each step timed (and, `traced`, each step's measured
    instructions kept: the runtime's own trace holds only the last step's)."""
    from stagecraft_runtime import worker

    timed = []

    class Timed(worker.Device):
        def step(self, step):
            wall, threads = time.perf_counter(), thread_cpu()
            loss = super().step(step)
            wall = time.perf_counter() - wall
            events = [list(e) for e in self.trace] if traced else None
            timed.append((wall, by_kind(threads, thread_cpu()), self.scheduler.total, events))
            return loss

    worker.Device = Timed
    opts = {"steps": steps, "dtype": dtype, "width": width, "timeout": 60.0, "backend": "gloo", "trace": traced}
    with tempfile.TemporaryDirectory(prefix="runtime-cpu-") as out:
        code = worker.main(rank, world, [plan], opts, out)
    print(json.dumps({"rank": rank, "code": code, "steps": timed}), flush=True)


def launch(runtime, plan, steps, dtype, width, traced=False):
    """Every device of `plan` on `runtime`: per device, its steps (wall s, CPU s by kind,
    instructions, measured events or None)."""
    from stagecraft_runtime.plan import device_count, load

    world = device_count(load(plan))
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()), WORLD_SIZE=str(world),
               PYTHONPATH=runtime)
    env.pop("STAGECRAFT_RUNTIME_STATUS", None)
    procs = [
        subprocess.Popen([sys.executable, __file__, "--device", str(r), str(world), "--steps", str(steps),
                          "--dtype", dtype, "--width", str(width), *(["--traced"] if traced else []), plan],
                         env=dict(env, RANK=str(r), LOCAL_RANK=str(r)), cwd=runtime,
                         stdout=subprocess.PIPE, text=True)
        for r in range(world)
    ]
    ranks = []
    for p in procs:
        out, _ = p.communicate(timeout=600)
        if p.returncode != 0:
            raise SystemExit(f"{plan} on {runtime}: a device exited with {p.returncode}")
        ranks.append(json.loads(out.strip().splitlines()[-1]))
    return ranks


def run(runtime, plan, steps, dtype, width):
    measured = [r for r in launch(runtime, plan, steps, dtype, width) if r["steps"]]
    walls = [max(r["steps"][s][0] for r in measured) for s in range(1, steps)]
    kinds = [sum(s[1][k] for r in measured for s in r["steps"][1:]) for k in range(3)]
    instructions = sum(r["steps"][0][2] for r in measured) * (steps - 1)
    most = max(r["steps"][0][2] for r in measured)
    wall = statistics.median(walls)
    return wall * 1e3, wall / most * 1e6, [k / instructions * 1e6 for k in kinds]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("plans", nargs="+")
    ap.add_argument("--runtime", action="append", help="a runtime/ folder (default: this checkout's)")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--json", action="store_true",
                    help="one run of the first plan on the first runtime, every device's steps with their "
                         "measured instructions, as JSON (what bench/runtime-overhead.ts reads)")
    ap.add_argument("--device", nargs=2, type=int, help=argparse.SUPPRESS)
    ap.add_argument("--traced", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.device:
        return device(a.device[0], a.device[1], a.plans[0], a.steps, a.dtype, a.width, a.traced)
    if a.json:
        runtime = os.path.abspath((a.runtime or [CHECKOUT_RUNTIME])[0])
        sys.path.insert(0, CHECKOUT_RUNTIME)
        print(json.dumps(launch(runtime, os.path.abspath(a.plans[0]), a.steps, a.dtype, a.width, traced=True)))
        return None
    runtimes = [os.path.abspath(r) for r in a.runtime or [CHECKOUT_RUNTIME]]
    sys.path.insert(0, CHECKOUT_RUNTIME)  # the plan's device count, read as this checkout reads it
    print("load average (1, 5, 15 min) before: " + " ".join(f"{x:.1f}" for x in os.getloadavg()))
    print("runtime | plan | median wall step ms | wall µs per instruction | CPU µs per instruction | "
          "of which the loop's thread | waiter threads | gloo's and torch's threads")
    for _ in range(a.rounds):
        for plan in a.plans:
            for runtime in runtimes:
                wall, per, cpu = run(runtime, os.path.abspath(plan), a.steps, a.dtype, a.width)
                print(f"{runtime} | {os.path.basename(plan)} | {wall:.1f} | {per:.0f} | {sum(cpu):.0f} | "
                      + " | ".join(f"{c:.0f}" for c in cpu), flush=True)
    print("load average (1, 5, 15 min) after: " + " ".join(f"{x:.1f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
