"""Context parallelism on one device: which rows of every sequence it holds and the K/V exchanges
of the blocks a `contextParallel` region splits, in either form.

The runtime's blocks (model.py) mix no rows, so a block under context parallelism is built as a
`SequenceBlock`: its MLP plus causal attention over the rows of the microbatch (queries from a
projection of each row, keys and values the rows themselves), the reference running it whole.
Member r of n holds rows of chunks r and 2n−1−r of 2n (Megatron-LM's load balancing).

all_gather form: its ALL_GATHER before a forward gathers every member's rows (the K/V) into
sequence order; the forward attends its own rows' queries over them; its backward's ALL_GATHER
gathers them again, and the REDUCE_SCATTER after it sums every member's gradient of the gathered
rows and hands this member its own rows' share, added to the input gradient before that leaves.

ring form (ring_attention.py): the exchanges carry `ringSteps` and run as point-to-point steps
around their `devices`. The forward's ALL_GATHER passes the K/V chunks; the forward, which the plan
does not make wait for it, attends its own chunk and then each received one, merged by
log-sum-exp; it runs when both it and the ring have been reached (its consumers wait for both).
The backward's ALL_GATHER passes the K/V again and checks them equal to the forward's; its
REDUCE_SCATTER returns each chunk's gradient to its owner, summed on the way, once the backward
has made them."""
import os
import threading

import torch

from . import collectives
from .mesh import region_devices
from .ring_attention import FAULTS, RingPass, ring_forward, ring_peers, ring_tag
from .scheduler import RunError


def sequence_rows(total, index, degree):
    """The rows of a `total`-row sequence member `index` of `degree` holds: chunks index and
    2·degree−1−index of 2·degree, in sequence order."""
    if total % (2 * degree):
        raise RunError(
            f"a sequence of {total} rows does not split into {2 * degree} equal chunks for context "
            f"parallelism over {degree} members: run with rows a multiple of {2 * degree}"
        )
    size = total // (2 * degree)
    first = list(range(index * size, (index + 1) * size))
    last = list(range((2 * degree - 1 - index) * size, (2 * degree - index) * size))
    return torch.tensor(first + last, dtype=torch.long)


class SequenceChunks:
    def __init__(self, plan, setup, rank, held):
        self.setup = setup
        self.rank = rank
        self.split = {}  # block -> (index, degree)
        self.members = {}  # block -> its context-parallel members, in plan order
        self.ring = set()  # blocks of the ring form
        fault = os.environ.get("STAGECRAFT_RUNTIME_RING_FAULT")
        self.fault = fault if fault in FAULTS else None
        for region in plan.get("contextParallel", []):
            devices = region_devices(plan, region, rank)
            if devices is None:
                continue
            for b in region["blocks"]:
                self.split[b] = (devices.index(rank), len(devices))
                self.members[b] = tuple(devices)
                if region["form"] == "ring":
                    self.ring.add(b)
        degrees = {self.split.get(b, (0, 1))[1] for b in held}
        if len(degrees) > 1 or (self.split and not set(held) <= set(self.split)):
            raise RunError(
                f"device {rank}: some of its blocks are context parallel and some not (or split "
                "differently); this runtime splits the sequence where the data enters, for every "
                "block a device holds alike"
            )
        self.slot = next(iter(self.split.values()), None)
        self.reset()

    def reset(self):
        self.gathered = {}  # (block, mb, "F" or "B") -> the sequence's rows, gathered
        self.partial = {}  # (block, mb) -> (input gradients, gradients of the K/V it attended)
        self.received = {}  # (block, mb) -> the ring's chunks: [(rows, their member's index)]
        self.forward_kv = {}  # (block, mb) -> the forward's ring chunks, for the backward's check
        self.pending = {}  # (block, mb) -> a ring forward reached before its chunks arrived
        self.backward_done = {}  # (block, mb) -> set once its backward made the K/V gradients

    def __contains__(self, block):
        return block in self.split

    def rows(self):
        """The rows of each microbatch this device holds, or None when it holds them all."""
        if self.slot is None:
            return None
        return sequence_rows(self.setup.sample_rows(), *self.slot)

    def local_rows(self):
        return self.setup.sample_rows() // self.slot[1] if self.slot else self.setup.sample_rows()

    def _order(self, parts, n):
        """Every member's rows (plan order) put back in sequence order."""
        total = self.setup.sample_rows()
        out = torch.empty(total, self.setup.width, dtype=parts.dtype, device=parts.device)
        for j in range(n):
            out[sequence_rows(total, j, n)] = parts[j]
        return out

    def all_gather(self, ins, group, order, acts):
        tensor = ins.tensor
        b, mb = tensor.block, tensor.microbatch
        index, n = self.split[b]
        # Its members in any order: the order is the plan's word on whose rows come where.
        if sorted(ins.devices) != sorted(self.members[b]):
            raise RunError(f"{ins.id}: runs over {list(ins.devices)}, not block {b}'s context-parallel members")
        if ins.ring_steps:
            return self._ring_kv(ins, group, acts)
        mine = self.inputs_of(b, mb, acts)
        work, result = collectives.all_gather(mine.contiguous().reshape(-1), n, group, order)
        key = (b, mb, "F" if tensor.forward else "B")

        def gathered():
            self.gathered[key] = self._order(result().view(n, -1, self.setup.width), n)

        return work, gathered

    def inputs_of(self, b, mb, acts):
        """This member's rows of block b's input on microbatch mb (the K/V it contributes)."""
        spec = self.setup.blocks[b]
        if spec["inputs"]:
            return sum(acts.outputs[(a, mb)] for a in spec["inputs"]).detach()
        return self.data(mb)[0]

    def data(self, mb):
        x, y = self.setup.data(self.step, self.replica, mb)
        rows = self.rows()
        return x[rows], y[rows]

    def keys_for(self, b, mb, forward):
        """The K/V block b's forward (or, in the all_gather form, backward) on microbatch mb attends
        beyond its own rows."""
        if b in self.ring:
            chunks = self.received.pop((b, mb), None)
            if chunks is None:
                raise RunError(f"device {self.rank}: block {b} microbatch {mb}: its forward needs the K/V chunks no ring passed it")
            total, n = self.setup.sample_rows(), self.slot[1]
            positions = [sequence_rows(total, j, n) for _, j in chunks]
            if self.fault == "reorder":
                positions = positions[1:] + positions[:1]
            return AttendedKV([c.requires_grad_() for c, _ in chunks], positions, self.rows(), self.fault)
        key = (b, mb, "F" if forward else "B")
        if key not in self.gathered:
            raise RunError(
                f"block {b} microbatch {mb}: its {'forward' if forward else 'backward'} needs the "
                "sequence's K/V and no ALL_GATHER before it gathered them"
            )
        return AttendedKV([self.gathered.pop(key).requires_grad_()], None, self.rows(), None)

    def defer(self, key, run):
        """Whether the forward of `key` waits for its ring's chunks (`run` runs it once they arrive)."""
        if key[0] not in self.ring or key in self.received:
            return False
        self.pending[key] = run
        return True

    def check_backward(self, b, mb, kv):
        """The all_gather form's backward gathers the K/V again: they must be the forward's (the
        ring's are compared when its backward pass arrives)."""
        if b not in self.ring and not torch.equal(self.keys_for(b, mb, False).leaves[0], kv.leaves[0].detach()):
            raise RunError(f"device {self.rank}: block {b} microbatch {mb}: the K/V gathered for its backward differ from its forward's")

    def gradients(self, key, grads, kv_grads):
        """A backward's input gradients and those of the K/V it attended, for the exchange that
        returns the latter to their owners."""
        self.partial[key] = (grads, kv_grads)
        if key[0] in self.ring:
            self.backward_done.setdefault(key, threading.Event()).set()

    def _ring_kv(self, ins, group, acts):
        """The ring's K/V (ALL_GATHER) or K/V gradient (REDUCE_SCATTER) exchange: `ring_steps`
        point-to-point steps around `ins.devices`."""
        tensor = ins.tensor
        b, mb = tensor.block, tensor.microbatch
        peers, p = ring_peers(list(ins.devices), self.rank)
        n = len(ins.devices)
        # At step s this member receives the chunk of the member s places before it.
        origins = [self.members[b].index(ins.devices[(p - s) % n]) for s in range(1, ins.ring_steps + 1)]
        if ins.op == "ALL_GATHER":
            mine = self.inputs_of(b, mb, acts)
            kind = 0 if tensor.forward else 1
            work = RingPass(ins.id, ins.ring_steps, group, peers, ring_tag(b, mb, kind), lambda: mine, lambda k, got: got)

            def arrived():
                chunks = list(zip(work.received, origins))
                if tensor.forward:
                    self.received[(b, mb)] = chunks
                    self.forward_kv[(b, mb)] = chunks
                    run = self.pending.pop((b, mb), None)
                    if run is not None:
                        run()
                    return
                before = self.forward_kv.pop((b, mb), None)
                if before is None or any(
                    j != i or not torch.equal(c, d) for (c, j), (d, i) in zip(chunks, before)
                ):
                    raise RunError(
                        f"{ins.id}: block {b} microbatch {mb}: the K/V passed around the ring for its "
                        "backward differ from its forward's"
                    )

            return work, arrived
        ready = self.backward_done.setdefault((b, mb), threading.Event())
        # The accumulator of the chunk received at step k + 1 gathers this member's gradient of it.
        work = RingPass(
            ins.id, ins.ring_steps, group, peers, ring_tag(b, mb, 2),
            lambda: self.partial[(b, mb)][1][0],
            lambda k, got: got + self.partial[(b, mb)][1][k],
            ready,
        )

        def hand_on():
            grads, _ = self.partial.pop((b, mb))
            self.backward_done.pop((b, mb), None)
            self._hand_on(b, mb, grads, work.received[-1], acts)

        return work, hand_on

    def reduce_scatter(self, ins, group, order, acts):
        tensor = ins.tensor
        b, mb = tensor.block, tensor.microbatch
        index, n = self.split[b]
        if ins.ring_steps:
            return self._ring_kv(ins, group, acts)
        if (b, mb) not in self.partial:
            raise RunError(f"{ins.id}: block {b} microbatch {mb} has no backward to reduce K/V gradients of")
        grads, keys_grad = self.partial.pop((b, mb))
        total = self.setup.sample_rows()
        whole = keys_grad[0]
        flat = torch.cat([whole[sequence_rows(total, j, n)] for j in range(n)]).reshape(-1).contiguous()
        work, result = collectives.reduce_scatter(flat, n, index, group, order)
        return work, lambda: self._hand_on(b, mb, grads, result().view(-1, self.setup.width), acts)

    def _hand_on(self, b, mb, grads, own, acts):
        """The block's input gradient: through its own rows, and through every member's attention
        to them (`own`, returned by the exchange)."""
        whole = (grads[0] if grads else 0) + own
        acts.grad_in[(b, mb)] = whole
        for a in self.setup.blocks[b]["inputs"]:
            if a in acts.held:
                acts.add_grad_out((a, mb), whole)


class AttendedKV:
    """The K/V a sequence block attends beyond its own rows: `leaves` (the gathered sequence, or
    the ring's chunks, each at `positions`), which its backward differentiates."""

    def __init__(self, leaves, positions, own, fault):
        self.leaves = leaves
        self.positions = positions
        self.own = own
        self.fault = fault

    def attend(self, block, x):
        if self.positions is None:
            return block(x, keys=self.leaves[0], positions=self.own)
        return ring_forward(block, x, [(x, self.own)] + list(zip(self.leaves, self.positions)), self.own, self.fault)
