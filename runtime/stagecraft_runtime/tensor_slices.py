"""Tensor parallelism on one device: the Megatron-style slice (index, degree) it holds of each
block of a `tensorParallel` region, the all-reduces that sum the members' partial outputs (F) or
input gradients (B, BI), and under sequence parallelism (Korthikanti et al. 2022 §4.2.2) the same
sum split in two: a REDUCE_SCATTER leaving the block, after which each member holds its own chunk
of the summed tensor's rows (the sequence dimension), and an ALL_GATHER entering the consumer,
which makes it whole again. A chunk is read by an ALL_GATHER and by a scattered SEND (each member
sending its own 1/n); it is freed after the last of the readers the program lists for it, so a
device holds only the chunks still to be read (`peak`, in elements, is the most it held at once)."""
from collections import Counter

from . import collectives
from .mesh import region_devices
from .scheduler import RunError


class TensorSlices:
    def __init__(self, plan, rank, activations):
        self.activations = activations
        self.rank = rank
        self.slices = {}  # block -> (index, degree)
        for region in plan.get("tensorParallel", []):
            devices = region_devices(plan, region, rank)
            if devices is not None:
                for b in region["blocks"]:
                    self.slices[b] = (devices.index(rank), len(devices))
        self.readers = Counter()  # (block, mb, forward) -> the program's instructions reading its chunk
        self.reset()

    def count_readers(self, program, excluded):
        """The chunk readers of `program`: its ALL_GATHERs of tensor-parallel tensors (but the
        blocks in `excluded`, whose gathers are another parallelism's) and its scattered SENDs."""
        for ins in program.instructions():
            tensor = getattr(ins, "tensor", None)
            if tensor is None or tensor.block not in self.slices or tensor.block in excluded:
                continue
            if ins.op == "ALL_GATHER" or ins.op == "SEND" and ins.scatter > 1:
                self.readers[(*tensor.key, tensor.forward)] += 1

    def reset(self):
        self.chunks = {}  # (block, mb, forward) -> this member's rows of the summed tensor
        self.unread = Counter(self.readers)
        self.held = 0
        self.peak = 0

    def keep(self, key, chunk):
        """`chunk` is this member's rows of `key` until its readers have read it."""
        old = self.chunks.get(key)
        self.held += chunk.numel() - (old.numel() if old is not None else 0)
        self.chunks[key] = chunk
        self.peak = max(self.peak, self.held)
        # A recomputed forward's reduce-scatter writes the chunk again, for readers of its own.
        if self.unread[key] <= 0:
            self.unread[key] = self.readers[key]

    def read(self, key):
        """This member's chunk of `key` for one of its readers (freed after the last)."""
        chunk = self.chunks.get(key)
        if chunk is None:
            return None
        self.unread[key] -= 1
        if self.unread[key] <= 0:
            del self.chunks[key]
            self.held -= chunk.numel()
        return chunk

    def slice_of(self, block):
        return self.slices.get(block, (0, 1))

    def __contains__(self, block):
        return block in self.slices

    def own_chunk(self, ins):
        """What a scattered SEND carries: this member's chunk of the tensor's rows, kept by the
        REDUCE_SCATTER before it (sequence parallelism) or cut from the whole tensor its
        ALL_REDUCE summed."""
        tensor = ins.tensor
        chunk = self.read((*tensor.key, tensor.forward))
        if chunk is not None:
            return chunk.contiguous()
        index, n = self.slice_of(tensor.block)
        if n != ins.scatter:
            raise RunError(f"{ins.id}: sends 1/{ins.scatter} of block {tensor.block}'s tensor, which is split "
                           f"{n} ways here")
        acts = self.activations
        whole = (acts.outputs if tensor.forward else acts.grad_in)[tensor.key]
        rows = whole.shape[0] // n
        return whole[index * rows : (index + 1) * rows].contiguous()

    def all_reduce(self, ins, group):
        acts = self.activations
        tensor = ins.tensor
        key = tensor.key
        if tensor.forward:
            t = acts.outputs[key] = acts.outputs[key].contiguous()
            return collectives.all_reduce(t, group)[0], lambda: None
        t = acts.grad_in[key] = acts.grad_in[key].contiguous()
        return collectives.all_reduce(t, group)[0], lambda: acts.input_gradient(tensor.block, tensor.microbatch, t)

    def reduce_scatter(self, ins, group, order):
        """The members' partial tensors summed; this member keeps the rows at its plan position."""
        acts, tensor = self.activations, ins.tensor
        partial = (acts.outputs if tensor.forward else acts.grad_in).get(tensor.key)
        if partial is None:
            raise RunError(f"{ins.id}: block {tensor.block} microbatch {tensor.microbatch} has no "
                           f"{'output' if tensor.forward else 'input gradient'} here to reduce-scatter")
        n = len(ins.devices)
        rows, width = partial.shape
        if rows % n:
            raise RunError(f"{ins.id}: {rows} rows do not split into {n} equal chunks (run with rows a multiple of {n})")
        work, result = collectives.reduce_scatter(partial.contiguous().reshape(-1), n, ins.devices.index(self.rank),
                                                  group, order)

        def keep():
            self.keep((*tensor.key, tensor.forward), result().view(rows // n, width))

        return work, keep

    def all_gather(self, ins, group, order):
        """Every member's chunk, in plan order: the whole tensor, handed to its consumers here."""
        acts, tensor = self.activations, ins.tensor
        chunk = self.read((*tensor.key, tensor.forward))
        if chunk is None:
            raise RunError(f"{ins.id}: block {tensor.block} microbatch {tensor.microbatch}: no REDUCE_SCATTER or "
                           "RECV before it left this member's chunk of the tensor it gathers")
        n = len(ins.devices)
        work, result = collectives.all_gather(chunk.contiguous().reshape(-1), n, group, order)

        def whole():
            t = result().view(n * chunk.shape[0], chunk.shape[1])
            if tensor.forward:
                acts.outputs[tensor.key] = t
            else:
                acts.grad_in[tensor.key] = t
                acts.input_gradient(tensor.block, tensor.microbatch, t)

        return work, whole
