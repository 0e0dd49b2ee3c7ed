"""One device's step: its streams run by the plan's rules (docs/plan-format.md). A single loop
issues the head of every stream once the instruction before it has finished (a RECV releases its
stream when posted) and its waits have; compute runs in the loop, SENDs, RECVs and collectives run
asynchronously on torch.distributed (isend, irecv, async_op) and inflight.py's waiter threads mark
each finished, so compute and communication overlap as far as the plan's waits allow. Nothing
here reads an id's text: blocks, microbatches, tensors and parameters come from the instructions'
@2 fields."""
import os
import signal
import threading
import time

import torch
import torch.distributed as dist

from . import backend, collectives, inflight, zero
from .mesh import region_devices
from .model import Adam
from .plan import COLLECTIVES, COMPUTE


class RunError(Exception):
    """A device could not finish its step; the message names the device and the instruction."""


class _Box:
    """A saved activation, moved to host memory by OFFLOAD and back by RELOAD."""

    __slots__ = ("t", "device")

    def __init__(self, t):
        self.t = t
        self.device = t.device


def _packer(boxes):
    """saved_tensors_hooks' pack: activations go into boxes OFFLOAD can move; parameters stay as
    they are (they are not the stash, and a ZeRO-3 parameter's storage is swapped in by its gather)."""

    def pack(t):
        if isinstance(t, torch.nn.Parameter):
            return t
        box = _Box(t)
        boxes.append(box)
        return box

    return pack


def _unpack(x):
    return x.t if isinstance(x, _Box) else x


class Device:
    def __init__(self, plan, setup, rank, program, peer_of, groups, tags, replica, timeout=30.0, trace=None,
                 store=None, prefix="plan"):
        self.plan = plan
        self.setup = setup
        self.rank = rank
        self.program = program
        self.peer_of = peer_of
        self.groups = groups  # (devices tuple, stream) -> process group
        self.orders = {}  # (devices tuple, stream) -> collectives.MemberOrder
        self.tags = tags  # transfer key -> p2p tag
        self.replica = replica
        self.timeout = timeout
        self.trace = trace
        # Where members note each collective they reached, so a timeout can name who never did.
        self.store = store
        # Waiter threads note collectives reached while the loop may be reading the notes: one
        # client, one request at a time.
        self.store_lock = threading.Lock()
        self.prefix = prefix
        self.adam = Adam()
        self.waiters = inflight.InFlight(lambda work: backend.current.wait(work))
        # Fault injection for tests and drills: STAGECRAFT_RUNTIME_KILL="<device>:<instruction id>"
        # kills this process (SIGKILL, no goodbye) when it issues that instruction.
        # What this device last issued, in a small file the launcher reads if the process dies
        # without a word (killed): a memory map, so noting it costs a copy, not a system call.
        self.status = None
        path = os.environ.get("STAGECRAFT_RUNTIME_STATUS")
        if path:
            import mmap

            with open(path, "w+b") as f:
                f.write(b"\0" * 256)
                f.flush()
                self.status = mmap.mmap(f.fileno(), 256)
        kill = os.environ.get("STAGECRAFT_RUNTIME_KILL", "")
        device, _, self.kill_at = kill.partition(":")
        if device != str(rank):
            self.kill_at = None
        held = set()
        self.recomputed = set()
        self.offloaded = set()
        for stream in program["streams"]:
            for ins in stream["instructions"]:
                for m in ins.get("members", [ins]):
                    if m["op"] in COMPUTE and "block" in m:
                        held.add(m["block"])
                    if m["op"] == "RECOMPUTE":
                        self.recomputed.add((m["block"], m["microbatch"]))
                    if m["op"] == "OFFLOAD":
                        self.offloaded.add((m["block"], m["microbatch"]))
                if ins["op"] in COLLECTIVES:
                    held.update(ins.get("params", []))
        # Tensor parallelism: this member's (index, degree) per block it holds a slice of.
        self.tp = {}
        for region in plan.get("tensorParallel", []):
            devices = region_devices(plan, region, rank)
            if devices is not None:
                for b in region["blocks"]:
                    self.tp[b] = (devices.index(rank), len(devices))
        if setup.loss_block in self.tp:
            raise RunError(
                f"device {rank}: the loss block {setup.loss_block} is tensor parallel; this runtime "
                "computes the loss on whole outputs only (keep the last block unsharded)"
            )
        # Expert parallelism: the experts of each experts block this member owns (an equal share
        # per member of the all-to-all group, in member order).
        self.ep = {}
        for stream in program["streams"]:
            for ins in stream["instructions"]:
                if ins["op"] == "ALL_TO_ALL":
                    for c in held:
                        if setup.experts_of(c):
                            self.ep[c] = (ins["devices"].index(rank), len(ins["devices"]))
        self.blocks = {}
        for b in sorted(held):
            owned = None
            if b in self.ep:
                r, n = self.ep[b]
                per = setup.experts_of(b) // n
                owned = range(r * per, (r + 1) * per)
            self.blocks[b] = setup.block(b, self.tp.get(b, (0, 1)), owned)
        self.shapes = {b: [p.shape for p in mod.parameters()] for b, mod in self.blocks.items()}
        # ZeRO: flat gradient shards per bucket (tuple of blocks) this member keeps.
        self.shards = {}
        self._init_sharded_params()
        # A REDUCE_SCATTER takes the gradients it carries as soon as the backwards it waits for
        # have run (not when its stream frees up), so they never pile up here between microbatches.
        self.pending = {}  # REDUCE_SCATTER id -> the flat gradient it will carry
        self.reduce_after = {}  # compute id -> REDUCE_SCATTERs of parameters waiting on it
        for stream in program["streams"]:
            for ins in stream["instructions"]:
                if ins["op"] == "REDUCE_SCATTER" and ins.get("params"):
                    for w in ins["waits"]:
                        self.reduce_after.setdefault(w, []).append(ins)
        self.memory = {}
        # Per step, the gradients held when each UPD started (verdict.py compares them).
        self.gradients = {}

    def _init_sharded_params(self):
        """ZeRO-3: buckets held as this member's chunk of their flat parameters between uses; the
        whole copy exists from an ALL_GATHER to the end of the instructions that use it."""
        found = zero.sharded_buckets(self.program, exclude=set(self.tp) | set(self.ep))
        by_id = {ins["id"]: (ins, s["stream"]) for s in self.program["streams"] for ins in s["instructions"]}
        self.gathered_by = {}  # ALL_GATHER id -> (bucket, ids of the instructions using its copy)
        self.param_shards = {}  # bucket -> (shard, n, index, group)
        self.sharded_block = {}  # block -> its bucket
        self.users = {}  # bucket -> uses of the gathered copy still to run
        self.holding = {}  # instruction id -> buckets whose copy it holds
        for bucket, by_gather in found.items():
            for gid, uses in by_gather.items():
                self.gathered_by[gid] = (bucket, uses)
            ins, stream = by_id[next(iter(by_gather))]
            devices = tuple(ins["devices"])
            n, me = len(devices), devices.index(self.rank)
            flat = torch.nn.functional.pad(self._flat(bucket, False), (0, self._padded(bucket, n)))
            c = flat.numel() // n
            self.param_shards[bucket] = (flat[me * c : (me + 1) * c].clone(), n, me, self._group(devices, stream))
            self.users[bucket] = 0
            for b in bucket:
                self.sharded_block[b] = bucket
            self._release(bucket)

    def _materialize(self, bucket, flat):
        k = 0
        for b in bucket:
            for p, shape in zip(self.blocks[b].parameters(), self.shapes[b]):
                n = shape.numel()
                p.data = flat[k : k + n].view(shape)
                k += n

    def _release(self, bucket):
        for b in bucket:
            for p in self.blocks[b].parameters():
                p.data = torch.empty(0, dtype=self.setup.dtype, device=self.setup.device)

    def _gathered(self, gid, flat):
        bucket, uses = self.gathered_by[gid]
        if not uses:
            return
        if self.users[bucket] == 0:
            self._materialize(bucket, flat)
        self.users[bucket] += len(uses)
        for u in uses:
            self.holding.setdefault(u, []).append(bucket)

    def _after_compute(self, ins):
        """Hands finished backwards' gradients to their REDUCE_SCATTERs; frees gathered copies
        whose last use this was."""
        for rs in self.reduce_after.get(ins["id"], []):
            if rs["id"] not in self.pending and all(w in self.done for w in rs["waits"]):
                blocks = tuple(rs["params"])
                flat = self._flat(blocks, True)
                self.pending[rs["id"]] = torch.nn.functional.pad(flat, (0, self._padded(blocks, len(rs["devices"]))))
                self._clear_grads(blocks)
        for bucket in self.holding.pop(ins["id"], []):
            self.users[bucket] -= 1
            if self.users[bucket] == 0:
                self._release(bucket)

    def _held(self):
        """Bytes of parameters, gradients and optimizer state this device holds now."""
        size = torch.empty(0, dtype=self.setup.dtype).element_size()
        mods = self.blocks.values()
        params = sum(p.data.numel() for m in mods for p in m.parameters())
        params += sum(s[0].numel() for s in self.param_shards.values())
        grads = sum(p.grad.numel() for m in mods for p in m.parameters() if p.grad is not None)
        grads += sum(s[0].numel() for s in self.shards.values())
        return params * size, grads * size, self.adam.numel() * size

    # ---- one step ----------------------------------------------------------------------------
    def step(self, step):
        self.step_index = step
        if self.trace is not None:
            self.trace.clear()  # the measured trace is the last step's
        self.stash = {}  # (block, mb) -> dict(inputs, out, boxes)
        self.outputs = {}  # (block, mb) -> forward output (detached) for local consumers and SENDs
        self.grad_out = {}  # (block, mb) -> gradient of the block's output
        self.grad_in = {}  # (block, mb) -> gradient of the block's input (for SENDs)
        self.received = {}
        self.routes = {}  # (router, mb) -> (expert index, weight) per token and slot
        self.positions = {}  # (experts block, mb) -> per member, the (token, slot) of each row sent
        self.expert_in = {}  # (experts block, mb) -> rows received by dispatch
        self.expert_rows = {}  # (experts block, mb) -> rows computed here, to combine
        self.expert_in_grad = {}  # (experts block, mb) -> (row input gradients, gate gradients)
        self.given_grad = {}  # (block, mb) -> output gradient handed over by an all-to-all
        self.loss = 0.0
        self.memory = {}
        self.done = set()
        self.errors = []
        # SENDs and RECVs issued since the loop was last idle: when it is, it waits on one itself
        # where the plan waits for it and nothing else can run, and hands the rest to inflight's
        # threads (no thread hand-off while there is compute to issue).
        self.unwatched = {}  # id -> (ins, finish, start, stream, work)
        self.issued = set()
        streams = [{"name": s["stream"], "list": s["instructions"], "pos": 0, "busy": None} for s in self.program["streams"]]
        total = sum(len(s["list"]) for s in streams)
        last = time.monotonic()
        t0 = time.perf_counter()
        while len(self.done) < total:
            progress = self._drain()
            for s in streams:
                if s["busy"] is not None:
                    if s["busy"] not in self.done:
                        continue
                    s["busy"] = None
                if s["pos"] >= len(s["list"]):
                    continue
                ins = s["list"][s["pos"]]
                if not self._ready(ins):
                    continue
                s["pos"] += 1
                progress = True
                self.issued.add(ins["id"])
                if self._issue(ins, s["name"], t0):
                    s["busy"] = ins["id"]
                    s["busy_ins"] = ins
            if self.errors:
                raise self.errors[0]
            if progress:
                last = time.monotonic()
                continue
            # Idle: the messages issued since the last time are watched from now on (so a trace
            # still records each when the loop first hears it arrived), but the one every stream
            # waits for, which the loop waits on itself.
            needed = self._needed(streams)
            for i in [i for i in self.unwatched if i != needed]:
                ins, finish, start, stream, work = self.unwatched.pop(i)
                self.waiters.watch(work, (ins, finish, start, stream))
            if needed is not None:
                self._wait_here(needed, streams, last)
                last = time.monotonic()
                continue
            if time.monotonic() - last > self.timeout:
                raise RunError(self._stuck(streams))
            # Nothing can start until something in flight finishes: sleep until a waiter says so.
            self.waiters.wake.wait(0.002)
            self.waiters.wake.clear()
        params, _, optimizer = self._held()
        self.memory["params"] = params
        self.memory["optimizer"] = optimizer
        return self.loss

    def _blocking(self, streams):
        """Per unfinished stream, the ids not finished yet that keep it from issuing its head."""
        out = []
        for s in streams:
            if s["busy"] is not None and s["busy"] not in self.done:
                out.append({s["busy"]})
            elif s["pos"] < len(s["list"]):
                ins = s["list"][s["pos"]]
                waits = set(ins["waits"])
                for m in ins.get("members", []):
                    waits.update(m["waits"])
                out.append(waits - self.done)
        return out

    def _needed(self, streams):
        if not self.unwatched:
            return None
        return inflight.worth_blocking_on(self._blocking(streams), self.unwatched, self.issued)

    def _wait_here(self, i, streams, last):
        """Waits in the loop for the SEND or RECV `i` (one thread switch fewer than a waiter's
        handing it over), no longer than the no-progress timeout allows."""
        ins, finish, start, stream, work = self.unwatched.pop(i)
        left = self.timeout - (time.monotonic() - last)
        try:
            backend.current.wait(work, max(left, 0.001))
        except Exception as e:  # noqa: BLE001 - a timeout is named by what stands still, else the failure
            if time.monotonic() - last >= self.timeout:
                raise RunError(self._stuck(streams, also=f"{stream}: {i} in flight")) from e
            raise RunError(f"device {self.rank}: {i} ({ins['op']}) failed: {e}") from e
        try:
            finish()
        except Exception as e:
            raise RunError(f"device {self.rank}: {i} ({ins['op']}) failed: {type(e).__name__}: {e}") from e
        self._record(ins, start, stream)
        self.done.add(i)

    def _ready(self, ins):
        waits = list(ins["waits"])
        for m in ins.get("members", []):
            waits += m["waits"]
        return all(w in self.done for w in waits)

    def _reached_key(self, ins, rank):
        return f"{self.prefix}/step{self.step_index}/{ins['collective']}/{rank}"

    def _stuck(self, streams, also=None):
        heads = [also] if also else []
        for s in streams:
            if s["busy"] is not None:
                ins = s["busy_ins"]
                if ins["op"] in COLLECTIVES and self.store is not None:
                    with self.store_lock:
                        missing = [d for d in ins["devices"] if self.store.add(self._reached_key(ins, d), 0) == 0]
                    heads.append(
                        f"{s['name']}: collective {ins['collective']} over devices {ins['devices']} "
                        f"never reached by device(s) {missing}"
                    )
                else:
                    heads.append(f"{s['name']}: {s['busy']} in flight")
            elif s["pos"] < len(s["list"]):
                ins = s["list"][s["pos"]]
                missing = [w for w in ins["waits"] if w not in self.done]
                heads.append(f"{s['name']}: {ins['id']} waiting for {', '.join(missing) or 'its stream'}")
        return f"device {self.rank}: no progress for {self.timeout:.0f} s; " + "; ".join(heads)

    def _drain(self):
        ready = self.waiters.take()
        for (ins, finish, start, stream), error in ready:
            try:
                if error is not None:
                    raise error
                finish()
            except Exception as e:  # noqa: BLE001 - named and re-raised by the loop
                self.errors.append(RunError(f"device {self.rank}: {ins['id']} ({ins['op']}) failed: {e}"))
                continue
            self._record(ins, start, stream)
            self.done.add(ins["id"])
        return bool(ready)

    def _record(self, ins, start, stream):
        if self.trace is not None:
            self.trace.append((stream, ins["id"], start, time.perf_counter()))

    def _later(self, ins, stream, work, finish, before=None):
        """Marks `ins` finished (after `finish`, run by the loop) once `work` completes."""
        self.waiters.watch(work, (ins, finish, time.perf_counter(), stream), before)

    def _issue(self, ins, stream, t0):
        """Issues one instruction; True when it keeps its stream busy until it finishes."""
        op = ins["op"]
        if self.status is not None:
            note = f"{ins['id']} (step {self.step_index})".encode()[:255]
            self.status[: len(note) + 1] = note + b"\0"
        if ins["id"] == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        try:
            if op in COMPUTE or op == "OVERLAP" or op in ("OFFLOAD", "RELOAD"):
                members = ins.get("members", [ins])
                if any(m["op"] in ("B", "BI", "BW", "UPD") for m in members):
                    # What a backward adds to or UPD reads: the gradients kept between microbatches.
                    params, grads, _ = self._held()
                    self.memory["grads"] = max(self.memory.get("grads", 0), grads)
                    self.memory["paramsPeak"] = max(self.memory.get("paramsPeak", 0), params)
                start = time.perf_counter()
                for m in members:
                    self._compute(m)
                if self.trace is not None:
                    backend.current.sync()  # a GPU's compute ends when it has run, not when queued
                self._record(ins, start, stream)
                self.done.add(ins["id"])
                self._after_compute(ins)
                return False
            if op == "SEND":
                t = self._tensor_to_send(ins["tensor"])
                work = dist.isend(t.contiguous(), self.peer_of(ins["peer"]), tag=self.tags[ins["transfer"]])
                self.unwatched[ins["id"]] = (ins, lambda: None, time.perf_counter(), stream, work)
                # Rule 4 makes a SEND eager: it never waits for its receiver. Gloo's send completes
                # only once the peer has posted the receive, so holding the stream until then would
                # turn the plan's eager SENDs into a rendezvous (and deadlock V-shaped schedules).
                return False
            if op == "RECV":
                buf = torch.empty(self.setup.sample_rows(), self.setup.width, dtype=self.setup.dtype, device=self.setup.device)
                work = dist.irecv(buf, self.peer_of(ins["peer"]), tag=self.tags[ins["transfer"]])
                self.unwatched[ins["id"]] = (ins, lambda: self._received(ins["tensor"], buf), time.perf_counter(), stream, work)
                return False
            if op in COLLECTIVES:
                work, finish = self._collective(ins, stream)
                reached = None
                if self.store is not None:
                    key = self._reached_key(ins, self.rank)

                    def reached():
                        with self.store_lock:
                            self.store.add(key, 1)
                self._later(ins, stream, work, finish, reached)
                return True
        except RunError:
            raise
        except Exception as e:
            raise RunError(f"device {self.rank}: {ins['id']} ({op}) failed: {type(e).__name__}: {e}") from e
        raise RunError(f"device {self.rank}: {ins['id']}: unknown op {op}")

    # ---- tensors -----------------------------------------------------------------------------
    def _tensor_to_send(self, tensor):
        key = (tensor["block"], tensor["microbatch"])
        return self.outputs[key] if tensor["pass"] == "F" else self.grad_in[key]

    def _received(self, tensor, buf):
        key = (tensor["block"], tensor["microbatch"])
        if tensor["pass"] == "F":
            self.outputs[key] = buf
        else:
            # The gradient of block b's input is the gradient of the outputs of b's inputs held here.
            for a in self.setup.blocks[tensor["block"]]["inputs"]:
                if a in self.blocks:
                    self._add_grad_out((a, tensor["microbatch"]), buf)

    def _add_grad_out(self, key, g):
        prev = self.grad_out.get(key)
        self.grad_out[key] = g if prev is None else prev + g

    # ---- compute -----------------------------------------------------------------------------
    def _compute(self, ins):
        op = ins["op"]
        if op == "UPD":
            return self._update()
        key = (ins["block"], ins["microbatch"])
        bucket = self.sharded_block.get(ins["block"])
        if bucket is not None and op in zero.WORKS_ON_PARAMS and self.users[bucket] == 0:
            raise RunError(
                f"device {self.rank}: {ins['id']}: block {ins['block']}'s parameters are held here as a shard "
                "and no ALL_GATHER it waits for gathered them"
            )
        if op == "F":
            return self._forward(key, recompute=False)
        if op == "RECOMPUTE":
            return self._forward(key, recompute=True)
        if op in ("B", "BI", "BW"):
            return self._backward(key, op)
        if op == "OFFLOAD":
            for box in self.stash[key]["boxes"]:
                box.t = backend.current.to_host(box.t)
            return None
        if op == "RELOAD":
            for box in self.stash[key]["boxes"]:
                box.t = box.t.to(box.device, copy=True)
            return None
        raise RunError(f"device {self.rank}: {ins['id']}: unknown compute op {op}")

    def _experts_forward(self, key):
        rows = self.expert_in.pop(key)
        w = self.setup.width
        x = rows[..., :w].clone().requires_grad_()
        gates = rows[..., w + 1].clone().requires_grad_()
        ids = rows[..., w].round().long()
        boxes = []
        with torch.enable_grad(), torch.autograd.graph.saved_tensors_hooks(_packer(boxes), _unpack):
            y = self.blocks[key[0]].rows(x, gates, ids)
        self.expert_rows[key] = y.detach()
        self.stash[key] = {"inputs": [x, gates], "out": y, "boxes": boxes}

    def _forward(self, key, recompute):
        b, mb = key
        setup = self.setup
        if setup.experts_of(b):
            return self._experts_forward(key)
        spec = setup.blocks[b]
        routed = setup.router_of(b)
        k = setup.blocks[routed].get("topK") or 1 if routed is not None else 0
        if recompute:
            inputs = self.stash[key]["inputs"]
        elif spec["inputs"]:
            inputs = [self.outputs[(a, mb)].detach().requires_grad_() for a in spec["inputs"]]
        else:
            inputs = [setup.data(self.step_index, self.replica, mb)[0]]
        keep_graph = recompute or key not in self.recomputed
        boxes = []
        if keep_graph:
            with torch.enable_grad(), torch.autograd.graph.saved_tensors_hooks(_packer(boxes), _unpack):
                out = self.blocks[b](sum(inputs) if len(inputs) > 1 else inputs[0])
                if routed is not None:
                    self.routes[key] = self.blocks[b].route(out, k)
                if b == setup.loss_block:
                    loss = setup.loss(out, setup.data(self.step_index, self.replica, mb)[1])
        else:
            # To be recomputed: keep only the input now, the graph comes from RECOMPUTE.
            with torch.no_grad():
                out = self.blocks[b](sum(inputs) if len(inputs) > 1 else inputs[0])
                if routed is not None:
                    self.routes[key] = self.blocks[b].route(out, k)
                if b == setup.loss_block:
                    loss = setup.loss(out, setup.data(self.step_index, self.replica, mb)[1])
        if b == setup.loss_block and not recompute:
            self.loss += loss.item()
        self.outputs[key] = out.detach()
        if keep_graph:
            result = loss if b == setup.loss_block else out
            if routed is not None:
                # A router's result is its tokens and their gate weights, both differentiable.
                result = (out, self.routes[key][1])
            self.stash[key] = {"inputs": inputs, "out": result, "boxes": boxes}
        else:
            self.stash[key] = {"inputs": inputs, "out": None, "boxes": boxes}

    def _backward(self, key, op):
        b, mb = key
        st = self.stash[key]
        out = st["out"]
        if b == self.setup.loss_block:
            grad = None
        elif "grad" in st:  # the second half of a split backward: the output gradient the first used
            grad = st["grad"]
        elif key in self.given_grad:  # an expert all-to-all's gradient
            grad = st["grad"] = self.given_grad.pop(key)
        elif key in self.grad_out:
            grad = st["grad"] = self.grad_out.pop(key)
        else:
            raise RunError(f"device {self.rank}: no output gradient for block {b} microbatch {mb}")
        halves = st.setdefault("halves", set())
        halves.add(op)
        # BI and BW may come in either order (an OVERLAP may list BW first): the graph is kept
        # until both have run.
        retain = op != "B" and not {"BI", "BW"} <= halves
        params = list(self.blocks[b].parameters())
        inputs = [x for x in st["inputs"] if x.requires_grad]
        wrt = (inputs if op in ("B", "BI") else []) + (params if op in ("B", "BW") else [])
        grads = torch.autograd.grad(out, wrt, grad_outputs=grad, retain_graph=retain) if wrt else []
        if op in ("B", "BI") and self.setup.experts_of(b):
            self.expert_in_grad[key] = (grads[0], grads[1])
        elif op in ("B", "BI") and inputs:
            if len(inputs) == 1:
                self.grad_in[key] = grads[0]
            # A tensor-parallel slice's input gradient is partial: its ALL_REDUCE hands it on.
            for a, g in zip(self.setup.blocks[b]["inputs"] if b not in self.tp else [], grads[: len(inputs)]):
                if a in self.blocks:
                    self._add_grad_out((a, mb), g)
        if op in ("B", "BW"):
            self._accumulate(params, grads[len(wrt) - len(params) :])
        if not retain:
            del self.stash[key]

    @staticmethod
    def _accumulate(params, grads):
        for p, g in zip(params, grads):
            p.grad = g.clone() if p.grad is None else p.grad + g

    # ---- training state ----------------------------------------------------------------------
    def _flat(self, blocks, grads):
        ts = []
        for b in blocks:
            for p, shape in zip(self.blocks[b].parameters(), self.shapes[b]):
                if grads:
                    ts.append(p.grad if p.grad is not None else torch.zeros(shape, dtype=self.setup.dtype, device=self.setup.device))
                else:
                    ts.append(p.data)
        return torch.cat([t.reshape(-1) for t in ts])

    def _clear_grads(self, blocks):
        for b in blocks:
            for p in self.blocks[b].parameters():
                p.grad = None

    def _unflat(self, blocks, flat, grads):
        k = 0
        for b in blocks:
            for p, shape in zip(self.blocks[b].parameters(), self.shapes[b]):
                n = shape.numel()
                part = flat[k : k + n].view(shape)
                if grads:
                    p.grad = part.clone() if p.grad is None else p.grad + part
                else:
                    p.data.copy_(part)
                k += n

    def _group(self, devices, stream):
        """(process group, member order) of a collective over `devices` on `stream`."""
        key = (tuple(devices), stream)
        group = self.groups[key]
        order = self.orders.get(key)
        if order is None:
            order = self.orders[key] = collectives.member_order(group, key[0])
        return group, order

    def _collective(self, ins, stream):
        op = ins["op"]
        devices = tuple(ins["devices"])
        group, order = self._group(devices, stream)
        n = len(devices)
        me = devices.index(self.rank)
        if "tensor" in ins and op == "ALL_REDUCE":
            return self._reduce_tensor(ins["tensor"], group)
        if "tensor" in ins and op == "ALL_TO_ALL":
            return self._expert_all_to_all(ins, ins["tensor"], (group, order), n)
        blocks = tuple(ins.get("params", []))
        if not blocks:
            raise RunError(f"device {self.rank}: {ins['id']}: activation collectives are not run yet")
        if op == "ALL_REDUCE":
            flat = self._flat(blocks, True)
            self._clear_grads(blocks)
            work, result = collectives.all_reduce(flat, group)
            return work, lambda: self._unflat(blocks, result(), True)
        padded = self._padded(blocks, n)
        if op == "REDUCE_SCATTER":
            flat = self.pending.pop(ins["id"], None)
            if flat is None:
                flat = torch.nn.functional.pad(self._flat(blocks, True), (0, padded))
                # What the collective carries leaves the local gradients now: a backward that runs
                # while it is in flight accumulates afresh.
                self._clear_grads(blocks)
            work, result = collectives.reduce_scatter(flat, n, me, group, order)

            def keep():
                shard = result()
                prev = self.shards.get(blocks)
                self.shards[blocks] = (shard if prev is None else prev[0] + shard, n, me)

            return work, keep
        if op == "ALL_GATHER" and blocks in self.param_shards:
            shard = self.param_shards[blocks][0]
            work, result = collectives.all_gather(shard, n, group, order)
            total = shard.numel() * n - padded
            return work, lambda: self._gathered(ins["id"], result()[:total])
        if op == "ALL_GATHER":
            flat = torch.nn.functional.pad(self._flat(blocks, False), (0, padded))
            chunk = flat.numel() // n
            work, result = collectives.all_gather(flat[me * chunk : (me + 1) * chunk].contiguous(), n, group, order)
            total = flat.numel() - padded
            return work, lambda: self._unflat(blocks, result()[:total], False)
        raise RunError(f"device {self.rank}: {ins['id']}: {op} of parameters is not run yet")

    def _reduce_tensor(self, tensor, group):
        """Tensor parallelism: the members' partial outputs (F) or input gradients (B, BI) summed."""
        key = (tensor["block"], tensor["microbatch"])
        if tensor["pass"] == "F":
            t = self.outputs[key] = self.outputs[key].contiguous()
            return collectives.all_reduce(t, group)[0], lambda: None
        t = self.grad_in[key] = self.grad_in[key].contiguous()

        def hand_on():
            for a in self.setup.blocks[tensor["block"]]["inputs"]:
                if a in self.blocks:
                    self._add_grad_out((a, tensor["microbatch"]), t)

        return collectives.all_reduce(t, group)[0], hand_on

    def _expert_all_to_all(self, ins, tensor, group, n):
        """Dispatch (after the router's F), combine (after the experts' F) and their gradients
        (combine's after the B of the block reading the experts, dispatch's after the experts' B).
        Every member sends every other a block of T·k rows, the used ones first, so one
        fixed-size all_to_all_single carries it."""
        setup = self.setup
        b, mb = tensor["block"], tensor["microbatch"]
        w = setup.width
        forward = tensor["pass"] == "F"
        if forward and setup.router_of(b) is not None:
            c = setup.router_of(b)
            idx, weights = self.routes[(b, mb)]
            h = self.outputs[(b, mb)]
            per = setup.experts_of(c) // n
            slots = idx.numel()
            send = torch.zeros(n, slots, w + 2, dtype=setup.dtype, device=setup.device)
            send[:, :, w] = -1
            positions = [[] for _ in range(n)]
            for t in range(idx.shape[0]):
                for slot in range(idx.shape[1]):
                    e = int(idx[t, slot])
                    j = e // per
                    r = len(positions[j])
                    send[j, r, :w] = h[t]
                    send[j, r, w] = e
                    send[j, r, w + 1] = weights[t, slot].detach()
                    positions[j].append((t, slot))
            self.positions[(c, mb)] = positions
            return self._exchange(send, group, lambda got: self.expert_in.__setitem__((c, mb), got))
        if forward and setup.experts_of(b):
            key = (b, mb)

            def combine(got):
                out = torch.zeros(setup.sample_rows(), w, dtype=setup.dtype, device=setup.device)
                for j, rows in enumerate(self.positions[key]):
                    for r, (t, _slot) in enumerate(rows):
                        out[t] += got[j, r]
                self.outputs[key] = out

            return self._exchange(self.expert_rows.pop(key), group, combine)
        if not forward and setup.experts_of(b):
            key = (b, mb)
            dx, dg = self.expert_in_grad.pop(key)
            (router,) = setup.blocks[b]["inputs"]

            def hand_back(got):
                idx, _weights = self.routes[(router, mb)]
                dh = torch.zeros(setup.sample_rows(), w, dtype=setup.dtype, device=setup.device)
                dw = torch.zeros(idx.shape, dtype=setup.dtype, device=setup.device)
                for j, rows in enumerate(self.positions[key]):
                    for r, (t, slot) in enumerate(rows):
                        dh[t] += got[j, r, :w]
                        dw[t, slot] = got[j, r, w]
                self.given_grad[(router, mb)] = (dh, dw)

            return self._exchange(torch.cat([dx, dg.unsqueeze(-1)], dim=-1), group, hand_back)
        experts = [a for a in setup.blocks[b]["inputs"] if setup.experts_of(a)]
        if not forward and experts:
            key = (experts[0], mb)
            grad = self.grad_out.pop(key)
            positions = self.positions[key]
            slots = self.routes[(setup.blocks[key[0]]["inputs"][0], mb)][0].numel()
            send = torch.zeros(n, slots, w, dtype=setup.dtype, device=setup.device)
            for j, rows in enumerate(positions):
                for r, (t, _slot) in enumerate(rows):
                    send[j, r] = grad[t]
            return self._exchange(send, group, lambda got: self.given_grad.__setitem__(key, got))
        raise RunError(f"device {self.rank}: {ins['id']}: an ALL_TO_ALL this runtime cannot place")

    def _exchange(self, send, group, then):
        work, got = collectives.all_to_all(send, *group)
        return work, lambda: then(got())

    def _padded(self, blocks, n):
        total = sum(shape.numel() for b in blocks for shape in self.shapes[b])
        return (-total) % n

    def _names(self, blocks):
        """(block, parameter name, tensor-parallel slice or None) of each parameter of `blocks`,
        in the order their flat buckets concatenate them."""
        return [(b, name, self.tp.get(b)) for b in blocks for name, _p in self.blocks[b].named_parameters()]

    def _record_gradients(self):
        """What UPD is about to step: each ZeRO bucket's own gradient chunk, every other parameter's
        whole gradient (zeros where none arrived), as this device holds them."""
        held = []
        for blocks, (shard, n, me) in self.shards.items():
            held.append((self._names(blocks), (me, n), shard.detach().cpu().clone()))
        sharded = {b for blocks in self.shards for b in blocks}
        for b, mod in self.blocks.items():
            if b in sharded:
                continue
            for (name, p), shape in zip(mod.named_parameters(), self.shapes[b]):
                g = p.grad if p.grad is not None else torch.zeros(shape, dtype=self.setup.dtype)
                held.append(([(b, name, self.tp.get(b))], None, g.detach().cpu().clone()))
        self.gradients.setdefault(self.step_index, []).extend(held)

    def holdings(self):
        """The parameters this device holds now, as it holds them: ZeRO-3's own chunk of each bucket
        (never gathered for the comparison), every other parameter whole, stale or not."""
        held = []
        for bucket, (shard, n, me, _group) in self.param_shards.items():
            held.append((self._names(bucket), (me, n), shard.detach().cpu().clone()))
        for b, mod in self.blocks.items():
            if b in self.sharded_block:
                continue
            for name, p in mod.named_parameters():
                held.append(([(b, name, self.tp.get(b))], None, p.detach().cpu().clone()))
        return held

    def _update(self):
        self._record_gradients()
        sharded = set()
        for blocks, (shard, n, me) in self.shards.items():
            sharded.update(blocks)
            if blocks in self.param_shards:
                # ZeRO-3: Adam on the parameter shard this member holds, nothing else to write back.
                self.adam.step(("shard", blocks), self.param_shards[blocks][0], shard)
                continue
            # ZeRO-1/2: step this member's flat shard of the bucket; the ALL_GATHER after brings the rest.
            params = self._flat(blocks, False)
            flat = torch.nn.functional.pad(params, (0, shard.numel() * n - params.numel()))
            c = shard.numel()
            part = flat[me * c : (me + 1) * c].clone()
            self.adam.step(("shard", blocks), part, shard)
            flat[me * c : (me + 1) * c] = part
            self._unflat(blocks, flat[: params.numel()], False)
        self.shards = {}
        for b, mod in self.blocks.items():
            for name, p in mod.named_parameters():
                if p.grad is not None and b not in sharded:
                    self.adam.step((b, name), p.data, p.grad)
                p.grad = None
