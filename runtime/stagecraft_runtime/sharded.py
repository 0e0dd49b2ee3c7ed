"""ZeRO on one device: gradients reduce-scattered into this member's flat chunk of each bucket
(ZeRO-1/2), and buckets whose parameters are held as this member's chunk alone between uses
(ZeRO-3, found by zero.sharded_buckets): the whole copy exists from an ALL_GATHER to the end of the
instructions that use it. Chunks are at the member's position in the collective's `devices`."""
import torch

from . import collectives, zero
from .instructions import Collective


class ShardedParameters:
    def __init__(self, params, program, raw_program, rank, group_of, exclude):
        """`params`: BlockParameters; `program`: the typed program; `raw_program`: its plan entry
        (zero.sharded_buckets reads it); `group_of(devices, stream)`: (process group, member order)."""
        self.params = params
        self.rank = rank
        self.group_of = group_of
        found = zero.sharded_buckets(raw_program, exclude=exclude)
        by_id = {ins.id: ins for ins in program.instructions()}
        self.gathered_by = {}  # ALL_GATHER id -> (bucket, ids of the instructions using its copy)
        self.param_shards = {}  # bucket -> (shard, n, index, group)
        self.sharded_block = {}  # block -> its bucket
        self.users = {}  # bucket -> uses of the gathered copy still to run
        self.holding = {}  # instruction id -> buckets whose copy it holds
        for bucket, by_gather in found.items():
            for gid, uses in by_gather.items():
                self.gathered_by[gid] = (bucket, uses)
            ins = by_id[next(iter(by_gather))]
            n, me = len(ins.devices), ins.devices.index(rank)
            flat = params.padded_flat(bucket, False, n)
            c = flat.numel() // n
            self.param_shards[bucket] = (flat[me * c : (me + 1) * c].clone(), n, me, group_of(ins.devices, ins.stream))
            self.users[bucket] = 0
            for b in bucket:
                self.sharded_block[b] = bucket
            params.release(bucket)
        # A REDUCE_SCATTER takes the gradients it carries as soon as the backwards it waits for
        # have run (not when its stream frees up), so they never pile up between microbatches.
        self.reduce_after = {}  # compute id -> REDUCE_SCATTERs of parameters waiting on it
        for ins in program.instructions():
            if isinstance(ins, Collective) and ins.op == "REDUCE_SCATTER" and ins.params:
                for w in ins.waits:
                    self.reduce_after.setdefault(w, []).append(ins)
        self.pending = {}  # REDUCE_SCATTER id -> the flat gradient it will carry
        self.shards = {}  # bucket -> (gradient chunk, n, index), until UPD

    def gathered(self, block):
        """False when `block` is held as a shard and no ALL_GATHER has gathered it for its use."""
        bucket = self.sharded_block.get(block)
        return bucket is None or self.users[bucket] > 0

    def after_compute(self, ins_id, done):
        """Hands finished backwards' gradients to their REDUCE_SCATTERs; frees gathered copies
        whose last use this was."""
        for rs in self.reduce_after.get(ins_id, ()):
            if rs.id not in self.pending and all(w in done for w in rs.waits):
                self.pending[rs.id] = self.params.padded_flat(rs.params, True, len(rs.devices))
                self.params.clear_grads(rs.params)
        for bucket in self.holding.pop(ins_id, ()):
            self.users[bucket] -= 1
            if self.users[bucket] == 0:
                self.params.release(bucket)

    def reduce_scatter(self, ins, group, order):
        blocks, n = ins.params, len(ins.devices)
        me = ins.devices.index(self.rank)
        flat = self.pending.pop(ins.id, None)
        if flat is None:
            flat = self.params.padded_flat(blocks, True, n)
            # What the collective carries leaves the local gradients now: a backward that runs
            # while it is in flight accumulates afresh.
            self.params.clear_grads(blocks)
        work, result = collectives.reduce_scatter(flat, n, me, group, order)

        def keep():
            shard = result()
            prev = self.shards.get(blocks)
            self.shards[blocks] = (shard if prev is None else prev[0] + shard, n, me)

        return work, keep

    def all_gather(self, ins, group, order):
        blocks, n = ins.params, len(ins.devices)
        padded = self.params.padding(blocks, n)
        if blocks in self.param_shards:
            shard = self.param_shards[blocks][0]
            work, result = collectives.all_gather(shard, n, group, order)
            total = shard.numel() * n - padded
            return work, lambda: self._gathered(ins.id, result()[:total])
        me = ins.devices.index(self.rank)
        flat = self.params.padded_flat(blocks, False, n)
        chunk = flat.numel() // n
        work, result = collectives.all_gather(flat[me * chunk : (me + 1) * chunk].contiguous(), n, group, order)
        total = flat.numel() - padded
        return work, lambda: self.params.unflat(blocks, result()[:total], False)

    def _gathered(self, gid, flat):
        bucket, uses = self.gathered_by[gid]
        if not uses:
            return
        if self.users[bucket] == 0:
            self.params.materialize(bucket, flat)
        self.users[bucket] += len(uses)
        for u in uses:
            self.holding.setdefault(u, []).append(bucket)

    def update(self, adam):
        """Adam on each bucket's gradient chunk; the blocks it stepped (their whole gradients are
        not stepped again)."""
        stepped = set()
        for blocks, (shard, n, me) in self.shards.items():
            stepped.update(blocks)
            if blocks in self.param_shards:
                # ZeRO-3: Adam on the parameter shard this member holds, nothing else to write back.
                adam.step(("shard", blocks), self.param_shards[blocks][0], shard)
                continue
            # ZeRO-1/2: step this member's flat shard of the bucket; the ALL_GATHER after brings the rest.
            params = self.params.flat(blocks, False)
            flat = torch.nn.functional.pad(params, (0, shard.numel() * n - params.numel()))
            c = shard.numel()
            part = flat[me * c : (me + 1) * c].clone()
            adam.step(("shard", blocks), part, shard)
            flat[me * c : (me + 1) * c] = part
            self.params.unflat(blocks, flat[: params.numel()], False)
        self.shards = {}
        return stepped

    def gradient_chunks(self):
        """(names, (index, n), chunk) of each bucket's own gradient chunk, as UPD is about to step it."""
        return [(self.params.names(blocks), (me, n), shard.detach().cpu().clone())
                for blocks, (shard, n, me) in self.shards.items()]

    def parameter_chunks(self):
        """(names, (index, n), chunk) of each ZeRO-3 bucket's own parameter chunk, never gathered."""
        return [(self.params.names(bucket), (me, n), shard.detach().cpu().clone())
                for bucket, (shard, n, me, _group) in self.param_shards.items()]

    def held(self):
        """(parameter, gradient) elements held as chunks."""
        return (sum(s[0].numel() for s in self.param_shards.values()), sum(s[0].numel() for s in self.shards.values()))
