"""One device's step on torch.distributed: the backend the scheduler (scheduler.py) issues a
device's program on. Compute runs the blocks' forwards and backwards; SENDs, RECVs and collectives
start on torch.distributed (isend, irecv, async_op) and complete asynchronously. The state of the
parallelisms lives apart: ZeRO in sharded.py, expert exchange in experts.py, tensor slices in
tensor_slices.py; the status file, fault injection and collective notes in diagnostics.py.
Nothing here reads an id's text: blocks, microbatches, tensors and parameters come from the typed
instructions (instructions.py)."""
import contextlib

import torch
import torch.distributed as dist

from . import backend, collectives
from .activations import Activations, packer, unpack
from .chunked_collectives import ChunkedCollectives
from .context_parallel import SequenceChunks
from .diagnostics import Diagnostics
from .experts import ExpertExchange
from .instructions import BLOCK_OPS, Compute, Overlap, Update, parse_program
from .model import Adam
from .parameters import BlockParameters
from .scheduler import RunError, Scheduler
from .sharded import ShardedParameters
from .tensor_slices import TensorSlices

__all__ = ["Device", "RunError"]

BACKWARD_OPS = ("B", "BI", "BW")


class Device:
    def __init__(self, plan, setup, rank, program, peer_of, groups, tags, replica, timeout=30.0, trace=None,
                 store=None, prefix="plan"):
        self.setup = setup
        self.rank = rank
        self.groups = groups  # (devices tuple, stream) -> process group
        self.orders = {}  # (devices tuple, stream) -> collectives.MemberOrder
        self.replica = replica
        self.trace = trace
        self.program = parse_program(program, rank, peer_of, tags)
        self.adam = Adam()
        held, self.recomputed, self.offloaded = set(), set(), set()
        for ins in self.program.instructions():
            for m in ins.members if isinstance(ins, Overlap) else (ins,):
                if isinstance(m, Compute):
                    if m.op in BLOCK_OPS:
                        held.add(m.block)
                    if m.op == "RECOMPUTE":
                        self.recomputed.add(m.key)
                    if m.op == "OFFLOAD":
                        self.offloaded.add(m.key)
            held.update(getattr(ins, "params", ()))
        # The compute whose start is when the gradients kept between microbatches are measured.
        self.reads_gradients = {
            ins.id for ins in self.program.instructions()
            if any(m.op in BACKWARD_OPS or m.op == "UPD" for m in (ins.members if isinstance(ins, Overlap) else (ins,)))
        }
        self.element_size = torch.empty(0, dtype=setup.dtype).element_size()
        self.acts = Activations(setup.blocks, held)
        self.slices = TensorSlices(plan, rank, self.acts)
        self.sequence = SequenceChunks(plan, setup, rank, held)
        self.sequence.replica = replica
        self.slices.count_readers(self.program, self.sequence.split)
        self.chunked = ChunkedCollectives(self.program, setup, self.slices, self.acts)
        if setup.loss_block in self.slices:
            raise RunError(
                f"device {rank}: the loss block {setup.loss_block} is tensor parallel; this runtime "
                "computes the loss on whole outputs only (keep the last block unsharded)"
            )
        self.experts = ExpertExchange(setup, self.program, rank, held, self.acts)
        blocks = {b: setup.block(b, self.slices.slice_of(b), self.experts.owned(b)) for b in sorted(held)}
        self.params = BlockParameters(blocks, setup.dtype, setup.device, self.slices.slices)
        self.blocks = blocks
        # Read per instruction, so looked up once: the Parameter objects stay (ZeRO-3 swaps their
        # storage), and which experts block each block routes for.
        self.parameters = {b: list(mod.parameters()) for b, mod in blocks.items()}
        self.routes_for = {b: setup.router_of(b) for b in blocks}
        self.zero = ShardedParameters(self.params, self.program, program, rank, self._group,
                                      exclude=set(self.slices.slices) | set(self.experts.ep))
        self.memory = {}
        # Per step, the gradients held when each UPD started (verdict.py compares them).
        self.gradients = {}
        self.scheduler = Scheduler(self.program, self, timeout, Diagnostics(rank, store, prefix), trace)

    def step(self, step):
        self.step_index = step
        self.acts.reset()
        self.experts.reset()
        self.sequence.reset()
        self.slices.reset()
        self.chunked.reset()
        self.sequence.step = step
        self.loss = 0.0
        self.memory = {}
        self.scheduler.run(step)
        self.chunked.check_none_waiting(f"device {self.rank}: step {step}")
        params, _ = self._held()
        self.memory["params"] = params
        self.memory["optimizer"] = self.adam.numel() * self.element_size
        self.memory["rowChunksPeak"] = self.slices.peak * self.element_size
        return self.loss

    def _held(self):
        """Bytes of parameters and gradients this device holds now."""
        size = self.element_size
        params, grads = self.params.held()
        chunk_params, chunk_grads = self.zero.held()
        return (params + chunk_params) * size, (grads + chunk_grads) * size

    # ---- the scheduler's backend -------------------------------------------------------------
    def wait(self, work, timeout=None):
        backend.current.wait(work, timeout)

    def compute(self, ins, done):
        members = ins.members if isinstance(ins, Overlap) else (ins,)
        if ins.id in self.reads_gradients:
            # What a backward adds to or UPD reads: the gradients kept between microbatches.
            params, grads = self._held()
            self.memory["grads"] = max(self.memory.get("grads", 0), grads)
            self.memory["paramsPeak"] = max(self.memory.get("paramsPeak", 0), params)
        for m in members:
            if self.chunked.ran_early(m) or self.chunked.defer(m, self._compute):
                continue
            self._compute(m)
        if self.trace is not None:
            backend.current.sync()  # a GPU's compute ends when it has run, not when queued
        self.zero.after_compute(ins.id, done)

    def send(self, ins):
        key = ins.tensor.key
        if self.chunked.queued:
            self.chunked.check_made(f"device {self.rank}: {ins.id}", [key])
        if ins.scatter > 1:
            t = self.slices.own_chunk(ins)
        else:
            t = self.acts.outputs[key] if ins.tensor.forward else self.acts.grad_in[key]
        # The process group's own call: what dist.isend runs after checks the plan's validation
        # has made already (a Python frame and a group lookup less per message).
        return dist.group.WORLD.send([t.contiguous()], ins.peer, ins.tag), _nothing

    def recv(self, ins):
        setup = self.setup
        rows = self.sequence.local_rows()
        if rows % ins.scatter:
            raise RunError(f"device {self.rank}: {ins.id}: {rows} rows do not split into {ins.scatter} equal chunks")
        buf = torch.empty(rows // ins.scatter, setup.width, dtype=setup.dtype, device=setup.device)
        work = dist.group.WORLD.recv([buf], ins.peer, ins.tag)
        tensor = ins.tensor

        def received():
            if ins.scatter > 1:
                # The sender's chunk: the ALL_GATHER after this RECV makes the tensor whole.
                self.slices.keep((*tensor.key, tensor.forward), buf)
            elif tensor.forward:
                self.acts.outputs[tensor.key] = buf
            else:
                self.acts.input_gradient(tensor.block, tensor.microbatch, buf)

        return work, received

    def collective(self, ins):
        group, order = self._group(ins.devices, ins.stream)
        if ins.chunks is not None:
            if ins.op == "REDUCE_SCATTER":
                return self.chunked.reduce_scatter(ins, group, order, self._compute)
            return self.chunked.all_gather(ins, group, order)
        if ins.tensor is not None and ins.tensor.block in self.sequence:
            if ins.op == "ALL_GATHER":
                return self.sequence.all_gather(ins, group, order, self.acts)
            if ins.op == "REDUCE_SCATTER":
                return self.sequence.reduce_scatter(ins, group, order, self.acts)
        if ins.tensor is not None and ins.op == "ALL_REDUCE":
            return self.slices.all_reduce(ins, group)
        if ins.tensor is not None and ins.op == "REDUCE_SCATTER":
            return self.slices.reduce_scatter(ins, group, order)
        if ins.tensor is not None and ins.op == "ALL_GATHER":
            return self.slices.all_gather(ins, group, order)
        if ins.tensor is not None and ins.op == "ALL_TO_ALL":
            return self.experts.all_to_all(ins, group, order)
        blocks = ins.params
        if self.chunked.queued:
            self.chunked.check_made(f"device {self.rank}: {ins.id}", [k for k in self.chunked.queued if k[0] in blocks])
        if not blocks:
            raise RunError(f"device {self.rank}: {ins.id}: activation collectives are not run yet")
        if ins.op == "ALL_REDUCE":
            flat = self.params.flat(blocks, True)
            self.params.clear_grads(blocks)
            work, result = collectives.all_reduce(flat, group)
            return work, lambda: self.params.unflat(blocks, result(), True)
        if ins.op == "REDUCE_SCATTER":
            return self.zero.reduce_scatter(ins, group, order)
        if ins.op == "ALL_GATHER":
            return self.zero.all_gather(ins, group, order)
        raise RunError(f"device {self.rank}: {ins.id}: {ins.op} of parameters is not run yet")

    def _group(self, devices, stream):
        """(process group, member order) of a collective over `devices` on `stream`."""
        key = (tuple(devices), stream)
        group = self.groups[key]
        order = self.orders.get(key)
        if order is None:
            order = self.orders[key] = collectives.member_order(group, key[0])
        return group, order

    # ---- compute -----------------------------------------------------------------------------
    def _compute(self, ins):
        if isinstance(ins, Update):
            return self._update()
        op, key = ins.op, ins.key
        if op in BLOCK_OPS and not self.zero.gathered(ins.block):
            raise RunError(
                f"device {self.rank}: {ins.id}: block {ins.block}'s parameters are held here as a shard "
                "and no ALL_GATHER it waits for gathered them"
            )
        if op == "F":
            # A ring's forward attends chunks still in flight: it runs when the last arrives.
            if self.sequence.defer(key, lambda: self._forward(key, recompute=False)):
                return None
            return self._forward(key, recompute=False)
        if op == "RECOMPUTE":
            return self._forward(key, recompute=True)
        if op in BACKWARD_OPS:
            return self._backward(key, op)
        if op == "OFFLOAD":
            for box in self.acts.stash[key]["boxes"]:
                box.t = backend.current.to_host(box.t)
            return None
        for box in self.acts.stash[key]["boxes"]:  # RELOAD
            box.t = box.t.to(box.device, copy=True)
        return None

    def _saving(self, key, boxes):
        """Where the graph of `key` keeps its saved activations: in boxes OFFLOAD can move when an
        OFFLOAD moves them, else where autograd keeps them (a Python call per saved tensor less)."""
        if key in self.offloaded:
            return torch.autograd.graph.saved_tensors_hooks(packer(boxes), unpack)
        return contextlib.nullcontext()

    def _experts_forward(self, key):
        rows = self.experts.rows_in.pop(key)
        w = self.setup.width
        x = rows[..., :w].clone().requires_grad_()
        gates = rows[..., w + 1].clone().requires_grad_()
        ids = rows[..., w].round().long()
        boxes = []
        with torch.enable_grad(), self._saving(key, boxes):
            y = self.blocks[key[0]].rows(x, gates, ids)
        self.experts.rows_out[key] = y.detach()
        self.acts.stash[key] = {"inputs": [x, gates], "out": y, "boxes": boxes}

    def _forward(self, key, recompute):
        b, mb = key
        setup, acts = self.setup, self.acts
        if setup.experts_of(b):
            return self._experts_forward(key)
        spec = setup.blocks[b]
        routed = self.routes_for[b]
        k = setup.blocks[routed].get("topK") or 1 if routed is not None else 0
        sequence = b in self.sequence
        data = (lambda: self.sequence.data(mb)) if sequence else (lambda: setup.data(self.step_index, self.replica, mb))
        if recompute:
            inputs = acts.stash[key]["inputs"]
        elif spec["inputs"]:
            inputs = [acts.outputs[(a, mb)].detach().requires_grad_() for a in spec["inputs"]]
        else:
            inputs = [data()[0]]
        # A context-parallel block attends its rows over the sequence's K/V, exchanged before it.
        keys = None
        if sequence:
            keys = acts.stash[key]["keys"] if recompute else self.sequence.keys_for(b, mb, True)
        block = self.blocks[b] if keys is None else (lambda x, m=self.blocks[b], k=keys: k.attend(m, x))
        keep_graph = recompute or key not in self.recomputed
        boxes = []
        if keep_graph:
            with torch.enable_grad(), self._saving(key, boxes):
                out = block(sum(inputs) if len(inputs) > 1 else inputs[0])
                if routed is not None:
                    self.experts.routes[key] = self.blocks[b].route(out, k)
                if b == setup.loss_block:
                    loss = setup.loss(out, data()[1]) / (self.sequence.slot[1] if sequence else 1)
        else:
            # To be recomputed: keep only the input now, the graph comes from RECOMPUTE.
            with torch.no_grad():
                out = block(sum(inputs) if len(inputs) > 1 else inputs[0])
                if routed is not None:
                    self.experts.routes[key] = self.blocks[b].route(out, k)
                if b == setup.loss_block:
                    loss = setup.loss(out, data()[1]) / (self.sequence.slot[1] if sequence else 1)
        if b == setup.loss_block and not recompute:
            self.loss += loss.item()
        acts.outputs[key] = out.detach()
        if keep_graph:
            result = loss if b == setup.loss_block else out
            if routed is not None:
                # A router's result is its tokens and their gate weights, both differentiable.
                result = (out, self.experts.routes[key][1])
            acts.stash[key] = {"inputs": inputs, "out": result, "boxes": boxes, "keys": keys}
        else:
            acts.stash[key] = {"inputs": inputs, "out": None, "boxes": boxes, "keys": keys}

    def _backward(self, key, op):
        b, mb = key
        acts = self.acts
        st = acts.stash[key]
        out = st["out"]
        if b == self.setup.loss_block:
            grad = None
        elif "grad" in st:  # the second half of a split backward: the output gradient the first used
            grad = st["grad"]
        elif key in acts.given_grad:  # an expert all-to-all's gradient
            grad = st["grad"] = acts.given_grad.pop(key)
        elif key in acts.grad_out:
            grad = st["grad"] = acts.grad_out.pop(key)
        else:
            raise RunError(f"device {self.rank}: no output gradient for block {b} microbatch {mb}")
        halves = st.setdefault("halves", set())
        halves.add(op)
        # BI and BW may come in either order (an OVERLAP may list BW first): the graph is kept
        # until both have run.
        retain = op != "B" and not {"BI", "BW"} <= halves
        params = self.parameters[b]
        inputs = [x for x in st["inputs"] if x.requires_grad]
        keys = st.get("keys") if op in ("B", "BI") else None
        if keys is not None:
            self.sequence.check_backward(b, mb, keys)
        wrt = (inputs if op in ("B", "BI") else []) + (keys.leaves if keys is not None else []) + (params if op in ("B", "BW") else [])
        grads = torch.autograd.grad(out, wrt, grad_outputs=grad, retain_graph=retain) if wrt else []
        if keys is not None:
            # Its input gradient leaves with the other members' share, after the REDUCE_SCATTER.
            self.sequence.gradients(key, grads[: len(inputs)], grads[len(inputs) : len(inputs) + len(keys.leaves)])
        elif op in ("B", "BI") and self.setup.experts_of(b):
            self.experts.row_grads[key] = (grads[0], grads[1])
        elif op in ("B", "BI") and inputs:
            if len(inputs) == 1:
                acts.grad_in[key] = grads[0]
            # A tensor-parallel slice's input gradient is partial: its ALL_REDUCE hands it on.
            for a, g in zip(self.setup.blocks[b]["inputs"] if b not in self.slices else [], grads[: len(inputs)]):
                if a in self.blocks:
                    acts.add_grad_out((a, mb), g)
        if op in ("B", "BW"):
            for p, g in zip(params, grads[len(wrt) - len(params) :]):
                p.grad = g.clone() if p.grad is None else p.grad + g
        if not retain:
            del acts.stash[key]

    # ---- training state ----------------------------------------------------------------------
    def _update(self):
        self.chunked.check_none_waiting(f"device {self.rank}: UPD")
        self._record_gradients()
        stepped = self.zero.update(self.adam)
        for b, mod in self.blocks.items():
            for name, p in mod.named_parameters():
                if p.grad is not None and b not in stepped:
                    self.adam.step((b, name), p.data, p.grad)
                p.grad = None

    def _record_gradients(self):
        """What UPD is about to step: each ZeRO bucket's own gradient chunk, every other parameter's
        whole gradient (zeros where none arrived), as this device holds them."""
        held = self.zero.gradient_chunks()
        sharded = {b for blocks in self.zero.shards for b in blocks}
        for b, mod in self.blocks.items():
            if b in sharded:
                continue
            for (name, p), shape in zip(mod.named_parameters(), self.params.shapes[b]):
                g = p.grad if p.grad is not None else torch.zeros(shape, dtype=self.setup.dtype)
                held.append(([(b, name, self.slices.slices.get(b))], None, g.detach().cpu().clone()))
        self.gradients.setdefault(self.step_index, []).extend(held)

    def holdings(self):
        """The parameters this device holds now, as it holds them: ZeRO-3's own chunk of each bucket
        (never gathered for the comparison), every other parameter whole, stale or not."""
        held = self.zero.parameter_chunks()
        for b, mod in self.blocks.items():
            if b in self.zero.sharded_block:
                continue
            for name, p in mod.named_parameters():
                held.append(([(b, name, self.slices.slices.get(b))], None, p.detach().cpu().clone()))
        return held


def _nothing():
    return None
