"""Collectives on whatever the backend has: native ones where present (NCCL, torch ≥ 2 gloo),
built from all_reduce / all_gather / all_to_all_single where gloo on torch 1.13 lacks them. Each
returns (work, finish): `work` completes asynchronously, `finish()` then yields the result."""
import torch
import torch.distributed as dist


class _Done:
    def wait(self):
        return True


def all_reduce(t, group):
    return dist.all_reduce(t, group=group, async_op=True), (lambda: t)


def reduce_scatter(flat, n, rank, group):
    """Sum of `flat` over the group, this member's 1/n chunk (flat's length a multiple of n)."""
    chunk = flat.numel() // n
    out = torch.empty(chunk, dtype=flat.dtype)
    if _native("reduce_scatter_tensor", group):
        return dist.reduce_scatter_tensor(out, flat, group=group, async_op=True), (lambda: out)
    buf = flat.clone()
    return dist.all_reduce(buf, group=group, async_op=True), (lambda: buf[rank * chunk : (rank + 1) * chunk].clone())


def all_gather(shard, n, group):
    """The members' shards concatenated in group rank order."""
    out = torch.empty(shard.numel() * n, dtype=shard.dtype)
    if _native("all_gather_into_tensor", group):
        return dist.all_gather_into_tensor(out, shard, group=group, async_op=True), (lambda: out)
    parts = [torch.empty_like(shard) for _ in range(n)]
    return dist.all_gather(parts, shard, group=group, async_op=True), (lambda: torch.cat(parts))


_support = {}


def _native(name, group):
    """A native collective exists and the backend implements it (gloo on 1.13 has neither)."""
    if not hasattr(dist, name):
        return False
    backend = dist.get_backend(group)
    return backend != "gloo" or _support.get(name, False)
