"""Collectives on whatever the backend has: native ones where present (backend.py says which:
NCCL's reduce-scatter and all-gather into one tensor), built from all_reduce and the list
all_gather where gloo on torch 1.13 lacks them. Expert all-to-alls use all_to_all_single, which
both backends have. Each returns (work, finish): `work` completes asynchronously, `finish()` then
yields the result."""
import torch
import torch.distributed as dist

from . import backend


def all_reduce(t, group):
    return dist.all_reduce(t, group=group, async_op=True), (lambda: t)


def reduce_scatter(flat, n, rank, group):
    """Sum of `flat` over the group, this member's 1/n chunk (flat's length a multiple of n)."""
    chunk = flat.numel() // n
    native = backend.current.native.get("reduce_scatter")
    if native:
        out = torch.empty(chunk, dtype=flat.dtype, device=flat.device)
        return getattr(dist, native)(out, flat, group=group, async_op=True), (lambda: out)
    buf = flat.clone()
    return dist.all_reduce(buf, group=group, async_op=True), (lambda: buf[rank * chunk : (rank + 1) * chunk].clone())


def all_gather(shard, n, group):
    """The members' shards concatenated in group rank order."""
    native = backend.current.native.get("all_gather")
    if native:
        out = torch.empty(shard.numel() * n, dtype=shard.dtype, device=shard.device)
        return getattr(dist, native)(out, shard, group=group, async_op=True), (lambda: out)
    parts = [torch.empty_like(shard) for _ in range(n)]
    return dist.all_gather(parts, shard, group=group, async_op=True), (lambda: torch.cat(parts))
