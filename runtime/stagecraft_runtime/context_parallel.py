"""Context parallelism on one device, in the all_gather form: which rows of every sequence it holds
and the K/V exchanges of the blocks a `contextParallel` region splits.

The runtime's blocks (model.py) mix no rows, so a block under context parallelism is built as a
`SequenceBlock`: its MLP plus causal attention over the rows of the microbatch (queries from a
projection of each row, keys and values the rows themselves), the reference running it whole.
Member r of n holds rows of chunks r and 2n−1−r of 2n (Megatron-LM's load balancing). Its
ALL_GATHER before a forward gathers every member's rows (the K/V) into sequence order; the forward
attends its own rows' queries over them; its backward's ALL_GATHER gathers them again, and the
REDUCE_SCATTER after it sums every member's gradient of the gathered rows and hands this member its
own rows' share, added to the input gradient before that leaves. The ring form (K/V passed in
n−1 steps with partial attention merged by log-sum-exp) is refused: its forward runs before the
exchange it overlaps ends, which these blocks cannot merge."""
import torch

from . import collectives
from .mesh import region_devices
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
        self.split = {}  # block -> (index, degree)
        self.members = {}  # block -> its context-parallel members, in plan order
        for region in plan.get("contextParallel", []):
            devices = region_devices(plan, region, rank)
            if devices is None:
                continue
            if region["form"] != "all_gather":
                raise RunError(
                    f"device {rank}: blocks {region['blocks']} are context parallel in the "
                    f"{region['form']} form; this runtime runs the all_gather form only (the ring's "
                    "forward overlaps the K/V steps and merges partial attention, which it does not)"
                )
            for b in region["blocks"]:
                self.split[b] = (devices.index(rank), len(devices))
                self.members[b] = tuple(devices)
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
        self.partial = {}  # (block, mb) -> (input gradients, gradient of the gathered rows)

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
        key = (b, mb, "F" if forward else "B")
        if key not in self.gathered:
            raise RunError(
                f"block {b} microbatch {mb}: its {'forward' if forward else 'backward'} needs the "
                "sequence's K/V and no ALL_GATHER before it gathered them"
            )
        return self.gathered.pop(key)

    def reduce_scatter(self, ins, group, order, acts):
        tensor = ins.tensor
        b, mb = tensor.block, tensor.microbatch
        index, n = self.split[b]
        if (b, mb) not in self.partial:
            raise RunError(f"{ins.id}: block {b} microbatch {mb} has no backward to reduce K/V gradients of")
        grads, keys_grad = self.partial.pop((b, mb))
        total = self.setup.sample_rows()
        flat = torch.cat([keys_grad[sequence_rows(total, j, n)] for j in range(n)]).reshape(-1).contiguous()
        work, result = collectives.reduce_scatter(flat, n, index, group, order)

        def hand_on():
            own = result().view(-1, self.setup.width)
            inputs = self.setup.blocks[b]["inputs"]
            # The block's input gradient: through its own rows, and through every member's
            # attention to them.
            whole = (grads[0] if grads else 0) + own
            acts.grad_in[(b, mb)] = whole
            for a in inputs:
                if a in acts.held:
                    acts.add_grad_out((a, mb), whole)

        return work, hand_on
