"""`shard_tensor`'s `comm_overlap` (Megatron-LM's --tp-comm-overlap, Transformer Engine's
userbuffers): sequence parallelism's reduce-scatter and all-gather of a tensor each cut in two
collectives that carry chunks of its rows (the plan's `chunks: {from, to, of}`: chunk k is the k-th
of `of` equal row slices of every member's share). A reduce-scatter's hidden part may start before
the compute that produces its tensor (it runs beside it, from when that compute's inputs are
ready), and a consumer may start after the all-gather's first chunk, its output complete only
once the rest has arrived. What each plan instruction does here:

- a chunked REDUCE_SCATTER sums its chunks of every member's share and keeps this member's in its
  share of the rows; the share is tensor_slices' chunk once every chunk has arrived. When its
  tensor is not made yet, the compute making it (the block's F, or B / BI after its RECOMPUTE) runs
  first, here: Transformer Engine runs the GEMM chunk by chunk inside the overlapped collective.
  That compute instruction does nothing when its turn comes;
- a chunked ALL_GATHER gathers its chunks of every member's share into the whole tensor, handed to
  its consumers once every chunk has arrived;
- a compute that reads a tensor whose gather has not finished waits for its last chunk and runs
  when that arrives (the GEMM consumer waits on every chunk it depends on), before anything the
  plan orders after that chunk."""
import math

from . import collectives
from .scheduler import RunError


def row_multiple(plan):
    """The number a microbatch's rows must be a multiple of for every chunked collective of the
    plan to split them evenly (1 when it has none): members × chunks."""
    need = 1
    if not plan.get("tensorParallel"):
        return need
    for dev in plan["devices"]:
        for stream in dev.get("streams", []):
            for ins in stream["instructions"]:
                chunks = ins.get("chunks")
                if chunks is not None:
                    need = math.lcm(need, len(ins["devices"]) * chunks["of"])
    return need


class ChunkedCollectives:
    def __init__(self, program, setup, slices, activations):
        self.setup = setup
        self.slices = slices
        self.acts = activations
        # The compute that makes each tensor, to run early for a reduce-scatter's hidden part.
        self.makers = {}  # (block, mb, forward) -> [Compute, ...] in the order they run
        compute = {(m.op, m.key): m for ins in program.instructions() for m in getattr(ins, "members", (ins,))
                   if getattr(m, "key", None) is not None}
        for ins in program.instructions():
            if getattr(ins, "chunks", None) is None or ins.op != "REDUCE_SCATTER":
                continue
            t = ins.tensor
            if t.forward:
                makers = [compute.get(("F", t.key))]
            else:
                back = compute.get(("B", t.key)) or compute.get(("BI", t.key))
                makers = [compute.get(("RECOMPUTE", t.key)), back] if ("RECOMPUTE", t.key) in compute else [back]
            self.makers[(*t.key, t.forward)] = [m for m in makers if m is not None]
        self.reset()

    def reset(self):
        self.shares = {}  # (block, mb, forward) -> [this member's rows, chunks arrived]
        self.gathering = {}  # (block, mb, forward) -> [the whole tensor, chunks arrived]
        self.early = set()  # ids of compute that ran with a hidden reduce-scatter
        self.waiting = {}  # (block, mb, forward) being gathered -> [(compute, run), ...]
        self.queued = {}  # (block, mb) of compute waiting -> the tensor it waits behind

    def ran_early(self, m):
        return m.id in self.early

    # ---- compute waiting for the chunks it reads ---------------------------------------------
    def defer(self, m, run):
        """True when `m` reads a tensor still being gathered (or follows compute of its block and
        microbatch that does): it runs by `run(m)` once that tensor's last chunk has arrived."""
        key = getattr(m, "key", None)
        if key is None:
            return False
        behind = self.queued.get(key) or self._reads_gathering(m)
        if behind is None:
            return False
        self.queued[key] = behind
        self.waiting.setdefault(behind, []).append((m, run))
        return True

    def _reads_gathering(self, m):
        b, mb = m.key
        blocks = self.setup.blocks
        if m.op == "F":
            for a in blocks[b]["inputs"]:
                if (a, mb, True) in self.gathering:
                    return (a, mb, True)
        if m.op in ("B", "BI"):
            for c, spec in enumerate(blocks):
                if b in spec["inputs"] and (c, mb, False) in self.gathering:
                    return (c, mb, False)
        return None

    def check_made(self, where, keys):
        """Refuses to read what compute still waiting for chunks has not made yet (the plan orders
        the reader after that compute but not after the chunks it waits for)."""
        for key in keys:
            behind = self.queued.get(key)
            if behind is not None:
                raise RunError(
                    f"{where} reads what block {key[0]} microbatch {key[1]}'s compute makes, which still waits for "
                    f"chunks of block {behind[0]}'s {'output' if behind[2] else 'input gradient'} (microbatch "
                    f"{behind[1]}) its ALL_GATHER has not brought: the plan must order it after that ALL_GATHER"
                )

    def check_none_waiting(self, where):
        for tensor, queue in self.waiting.items():
            raise RunError(f"{where}: {queue[0][0].id} still waits for chunks of block {tensor[0]} microbatch "
                           f"{tensor[1]}'s {'output' if tensor[2] else 'input gradient'}, whose ALL_GATHER has not finished")

    # ---- the collectives ---------------------------------------------------------------------
    def reduce_scatter(self, ins, group, order, run):
        tensor, acts = ins.tensor, self.acts
        key = (*tensor.key, tensor.forward)
        made = acts.outputs if tensor.forward else acts.grad_in
        if tensor.key not in made:
            for m in self.makers.get(key, ()):
                # A RECOMPUTE that has run already left the graph the backward needs.
                graph = m.op == "RECOMPUTE" and acts.stash.get(m.key, {}).get("out") is not None
                if m.id not in self.early and not graph:
                    self.early.add(m.id)
                    run(m)
        partial = made.get(tensor.key)
        if partial is None:
            raise RunError(f"{ins.id}: block {tensor.block} microbatch {tensor.microbatch} has no "
                           f"{'output' if tensor.forward else 'input gradient'} here to reduce-scatter")
        n = len(ins.devices)
        rows, width = partial.shape
        share, part, first, last = self._split(ins, rows, n)
        send = partial.reshape(n, share, width)[:, first * part : last * part].reshape(-1).contiguous()
        work, result = collectives.reduce_scatter(send, n, ins.devices.index(self.slices.rank), group, order)

        def keep():
            held = self.shares.setdefault(key, [partial.new_empty(share, width), set()])
            held[0][first * part : last * part] = result().view(-1, width)
            held[1].update(range(first, last))
            if len(held[1]) == ins.chunks[2]:
                del self.shares[key]
                self.slices.keep(key, held[0])

        return work, keep

    def all_gather(self, ins, group, order):
        tensor, acts = ins.tensor, self.acts
        key = (*tensor.key, tensor.forward)
        chunk = self.slices.read(key)
        if chunk is None:
            raise RunError(f"{ins.id}: block {tensor.block} microbatch {tensor.microbatch}: no REDUCE_SCATTER or "
                           "RECV before it left this member's chunk of the tensor it gathers")
        n = len(ins.devices)
        share, width = chunk.shape
        _, part, first, last = self._split(ins, share * n, n)
        whole = self.gathering.get(key)
        if whole is None:
            whole = self.gathering[key] = [chunk.new_empty(share * n, width), set()]
            # The partial sum is no tensor a consumer may read: until the last chunk, nothing is.
            (acts.outputs if tensor.forward else acts.grad_in).pop(tensor.key, None)
        work, result = collectives.all_gather(chunk[first * part : last * part].reshape(-1).contiguous(), n, group, order)

        def place():
            whole[0].view(n, share, width)[:, first * part : last * part] = result().view(n, -1, width)
            whole[1].update(range(first, last))
            if len(whole[1]) < ins.chunks[2]:
                return
            del self.gathering[key]
            if tensor.forward:
                acts.outputs[tensor.key] = whole[0]
            else:
                acts.grad_in[tensor.key] = whole[0]
                acts.input_gradient(tensor.block, tensor.microbatch, whole[0])
            for m, run in self.waiting.pop(key, ()):
                del self.queued[m.key]
                if not self.defer(m, run):  # it may read another tensor still being gathered
                    run(m)

        return work, place

    def _split(self, ins, rows, n):
        """(rows of a member's share, rows of a chunk, first chunk, chunk after the last)."""
        first, last, of = ins.chunks
        if rows % (n * of):
            raise RunError(f"{ins.id}: {rows} rows do not split into {n} shares of {of} equal chunks "
                           f"(run with rows a multiple of {n * of})")
        return rows // n, rows // (n * of), first, last
