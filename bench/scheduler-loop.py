"""The issue loop's own Python per instruction (runtime/stagecraft_runtime/scheduler.py), without
torch.distributed or compute: every device of each plan issued over a backend whose compute does
nothing and whose communications have finished when issued, so no pass is idle and what is timed
is the loop, the dispatch and the bookkeeping. CPU time of this thread (`time.thread_time`), so a
shared machine's load moves it little. Prints µs of CPU per instruction, one line per plan.

    PYTHONPATH=runtime python3 bench/scheduler-loop.py [--steps 200] plan.json …
"""
import argparse
import json
import time

from stagecraft_runtime.instructions import parse_program
from stagecraft_runtime.plan import device_program
from stagecraft_runtime.scheduler import Scheduler


class Finished:
    """A backend whose every communication has finished by the time it is issued."""

    def compute(self, ins, done):
        pass

    def _communicate(self, ins):
        return None, _nothing

    send = recv = collective = _communicate

    def wait(self, work, timeout=None):
        pass


def _nothing():
    pass


def cpu_per_instruction(path, steps):
    with open(path) as f:
        plan = json.load(f)
    transfers = sorted({m["transfer"] for d in plan["devices"] for s in d["streams"] for i in s["instructions"]
                        for m in [i, *i.get("members", [])] if "transfer" in m})
    tags = {t: k + 1 for k, t in enumerate(transfers)}
    spent = issued = 0.0
    for d in plan["devices"]:
        if d.get("group", -1) < 0:
            continue
        raw, peer_of = device_program(plan, d["device"])
        scheduler = Scheduler(parse_program(raw, d["device"], peer_of, tags), Finished(), timeout=10)
        scheduler.run(0)  # warm: the first run builds what later ones reuse
        t = time.thread_time()
        for step in range(steps):
            scheduler.run(step)
        spent += time.thread_time() - t
        issued += scheduler.total * steps
    return spent / issued * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("plans", nargs="+")
    ap.add_argument("--steps", type=int, default=200)
    a = ap.parse_args()
    for path in a.plans:
        print(f"{path} | {cpu_per_instruction(path, a.steps):.2f} µs CPU per instruction", flush=True)


if __name__ == "__main__":
    main()
