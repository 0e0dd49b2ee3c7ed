"""Collectives on whatever the backend has: native ones where present (backend.py says which:
NCCL's reduce-scatter and all-gather into one tensor), built from all_reduce and the list
all_gather where gloo on torch 1.13 lacks them. Expert all-to-alls use all_to_all_single, which
both backends have. Each returns (work, finish): `work` completes asynchronously, `finish()` then
yields the result.

Chunks are in the plan's member order (the order of the instruction's `devices`, the contract of
docs/plan-format.md), whatever order torch gives the group's members: torch's new_group sorts its
ranks, so its all_gather, reduce-scatter and all_to_all_single order chunks by global rank. A
`MemberOrder` maps one to the other."""
import torch
import torch.distributed as dist

from . import backend


class MemberOrder:
    """Where each of the plan's members (by position in `devices`) is in torch's group.
    `rank_at[p]` is the group rank of the member at position p; `position_of[g]` its inverse."""

    __slots__ = ("rank_at", "position_of", "identity")

    def __init__(self, rank_at):
        self.rank_at = list(rank_at)
        self.position_of = [0] * len(self.rank_at)
        for p, g in enumerate(self.rank_at):
            self.position_of[g] = p
        self.identity = self.rank_at == list(range(len(self.rank_at)))

    def to_plan(self, chunks):
        """Rows of `chunks` (one per member, in group rank order) put in plan order."""
        return chunks if self.identity else chunks[self.rank_at]

    def to_group(self, chunks):
        """Rows of `chunks` (one per member, in plan order) put in group rank order."""
        return chunks if self.identity else chunks[self.position_of]


def member_order(group, devices):
    """The MemberOrder of a process group made from `devices`, read from torch's own record of
    the group's ranks (global rank -> group rank), so a torch that ordered them otherwise would be
    followed too."""
    ranks = None
    get = getattr(dist, "get_process_group_ranks", None)
    if get is not None:
        ranks = {r: g for g, r in enumerate(get(group))}
    else:
        ranks = getattr(dist.distributed_c10d, "_pg_group_ranks", {}).get(group)
    if ranks is None:  # not recorded: new_group's documented behaviour, sorted ranks
        ranks = {r: g for g, r in enumerate(sorted(devices))}
    return MemberOrder([ranks[d] for d in devices])


IDENTITY = {}


def _identity(n):
    order = IDENTITY.get(n)
    if order is None:
        order = IDENTITY[n] = MemberOrder(range(n))
    return order


def all_reduce(t, group):
    return dist.all_reduce(t, group=group, async_op=True), (lambda: t)


def reduce_scatter(flat, n, position, group, order=None):
    """Sum of `flat` over the group, the chunk at this member's plan `position` (flat's length a
    multiple of n, its chunks in plan order)."""
    order = order or _identity(n)
    chunk = flat.numel() // n
    native = backend.current.native.get("reduce_scatter")
    if native:
        out = torch.empty(chunk, dtype=flat.dtype, device=flat.device)
        # Group rank g receives chunk g: hand it the chunk of the member at g.
        inp = order.to_group(flat.view(n, chunk)).reshape(-1).contiguous()
        return getattr(dist, native)(out, inp, group=group, async_op=True), (lambda: out)
    buf = flat.clone()
    return dist.all_reduce(buf, group=group, async_op=True), (lambda: buf[position * chunk : (position + 1) * chunk].clone())


def all_gather(shard, n, group, order=None):
    """The members' shards concatenated in plan order."""
    order = order or _identity(n)
    native = backend.current.native.get("all_gather")
    if native:
        out = torch.empty(shard.numel() * n, dtype=shard.dtype, device=shard.device)
        return getattr(dist, native)(out, shard, group=group, async_op=True), (
            lambda: order.to_plan(out.view(n, -1)).reshape(-1)
        )
    parts = [torch.empty_like(shard) for _ in range(n)]
    return dist.all_gather(parts, shard, group=group, async_op=True), (
        lambda: torch.cat([parts[g] for g in order.rank_at])
    )


def all_to_all(send, group, order):
    """Row j of `send` to the member at plan position j; row j of the result from it."""
    send = order.to_group(send).contiguous()
    got = torch.empty_like(send)
    work = dist.all_to_all_single(got, send, group=group, async_op=True)
    return work, lambda: order.to_plan(got)
