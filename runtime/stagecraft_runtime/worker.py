"""One process of a run: global rank = plan device. It joins the process group, builds the
sub-groups every collective of the plan uses (all ranks, same order), then runs each plan's steps
and leaves its losses, step times, measured trace and parameters for the launcher."""
import datetime
import json
import math
import os
import sys
import time

import torch
import torch.distributed as dist

from . import backend
from .interrupts import interrupted
from .executor import Device
from .model import Setup
from .mesh import data_slot, replica_program
from .plan import COLLECTIVES, device_program, load


def comm_layout(plan):
    """Process groups keyed by (devices, stream), and a p2p tag per transfer, the same on every rank."""
    keys, transfers = set(), set()
    for dev in plan["devices"]:
        # A group lowered once: each replica's collectives run among its own sub-groups.
        programs = [dev] + [replica_program(dev, plan, r) for r in dev.get("replicas") or []]
        for program in programs:
            for s in program["streams"]:
                for ins in s["instructions"]:
                    for m in ins.get("members", [ins]):
                        if m["op"] in COLLECTIVES:
                            keys.add((tuple(m["devices"]), s["stream"]))
                        elif m["op"] in ("SEND", "RECV"):
                            transfers.add(m["transfer"])
    return sorted(keys), {t: i + 1 for i, t in enumerate(sorted(transfers))}


def _store():
    """The process group's key-value store (torch's private accessor, present on 1.13 and 2.x)."""
    try:
        return dist.distributed_c10d._get_default_store()
    except Exception:  # noqa: BLE001 - the timeout message then names less, nothing else changes
        return None


def run_plans(rank, world, plans, opts, out_dir=None, log=print):
    dtype = torch.float64 if opts.get("dtype", "float64") == "float64" else torch.float32
    results = []
    for pi, path in enumerate(plans):
        plan = load(path)
        setup = Setup(plan, width=opts.get("width", 16), rows=opts.get("rows", 2), seed=opts.get("seed", 0), dtype=dtype,
                      device=backend.current.device)
        keys, tags = comm_layout(plan)
        groups = {k: dist.new_group(list(k[0])) for k in keys}
        program, peer_of = device_program(plan, rank)
        device = None
        replica, counts_loss = data_slot(plan, rank)
        if program is not None and program.get("group", -1) >= 0:
            if program["device"] != rank:
                program = replica_program(program, plan, rank)
            trace = [] if opts.get("trace") else None
            device = Device(plan, setup, rank, program, peer_of, groups, tags, replica,
                            timeout=opts.get("timeout", 30.0), trace=trace, store=_store(), prefix=f"plan{pi}")
        losses, step_ms, non_finite = [], [], None
        for step in range(opts.get("steps", 3)):
            dist.barrier()
            t0 = time.perf_counter()
            try:
                own = device.step(step) if device is not None else 0.0
            except Exception as e:
                raise type(e)(f"{os.path.basename(path)}: step {step}: {e}") from e
            # Members of a group that is not data parallel compute the same loss: count it once.
            local = own if counts_loss else 0.0
            backend.current.sync()
            total = torch.tensor([local], dtype=torch.float64, device=backend.current.device)
            dist.all_reduce(total)
            step_ms.append((time.perf_counter() - t0) * 1000)
            losses.append(total.item())
            if non_finite is None and not math.isfinite(total.item()):
                non_finite = (step, _first_non_finite(own, world))
        memory = dict(device.memory) if device is not None else {}
        result = {"plan": path, "rank": rank, "loss": losses, "stepMs": step_ms, "params": [], "gradients": {},
                  "trace": [], "memory": memory, "backend": backend.current.name, "nonFinite": non_finite}
        if device is not None:
            # Every member reports what it holds itself (its own copy, its own ZeRO chunk), and the
            # gradients each UPD stepped: verdict.py compares each with the reference.
            result["params"] = device.holdings()
            result["gradients"] = device.gradients
            result["trace"] = device.trace or []
        if out_dir is not None:
            torch.save(result, os.path.join(out_dir, f"plan{pi}.rank{rank}.pt"))
        results.append(result)
        dist.barrier()
    return results


def _first_non_finite(own, world):
    """The lowest device whose own loss is not finite (every rank learns it: one MIN all-reduce)."""
    bad = torch.tensor([world if math.isfinite(own) else dist.get_rank()], dtype=torch.float64,
                       device=backend.current.device)
    dist.all_reduce(bad, op=dist.ReduceOp.MIN)
    return int(bad.item())


def main(rank, world, plans, opts, out_dir):
    """One device of a run; returns the exit code (1: a plan's loss was not finite under torchrun)."""
    if os.environ.get("OMP_NUM_THREADS", "").isdigit():
        torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    timeout = datetime.timedelta(seconds=opts.get("timeout", 30.0) + 30)
    try:
        chosen = backend.from_environment(opts.get("backend", "auto"), int(os.environ.get("LOCAL_RANK", rank)))
        backend.use(chosen)
        chosen.init(rank, world, timeout)
        results = run_plans(rank, world, plans, opts, out_dir)
        diverged = [r for r in results if r["nonFinite"] is not None]
        if out_dir is None and diverged:
            # Under torchrun nobody collects result files: device 0 says which loss went first
            # (JSON has no Infinity to carry it), and every device exits 1.
            if rank == 0:
                for r in diverged:
                    step, device = r["nonFinite"]
                    where = f"on device {device}" if device < world else "in the sum of the devices' finite losses"
                    print(f"error: {r['plan']}: non-finite loss at step {step} {where}", file=sys.stderr, flush=True)
            dist.destroy_process_group()
            return 1
        if out_dir is None and rank == 0:
            # Under torchrun nobody collects result files: device 0 says how the steps went.
            for r in results:
                line = {"plan": r["plan"], "devices": world, "backend": r["backend"], "loss": r["loss"], "stepMs": r["stepMs"]}
                print(json.dumps(line) if opts.get("json") else
                      f"{r['plan']}: {world} devices; loss {r['loss']}; step ms {[round(x, 2) for x in r['stepMs']]}",
                      flush=True)
    except Exception as e:
        if interrupted(e):
            raise KeyboardInterrupt from None
        # Stamped before this process closes its connections, so the launcher names the device
        # that failed first rather than a peer that then lost it; no cleanup that could hang.
        print(f"error@{time.time():.6f}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        os._exit(1)
    dist.destroy_process_group()
    return 0
