"""Context parallelism's ring form: a member's queries attend the sequence one chunk of keys and
values at a time, the chunks passed around the ring of members point to point, and the partial
results merged by the log-sum-exp rule (ring attention: Liu, Zaharia & Abbeel, "Ring Attention
with Blockwise Transformers for Near-Infinite Context", arXiv:2310.01889, §3; Megatron-LM's context
parallelism runs it as TransformerEngine's `AttnFuncWithCPAndKVP2P`). The merge is the online
softmax's (Milakov & Gimelshein, arXiv:1805.02867; FlashAttention-2 §3.1): with each chunk's output
o_j normalised within the chunk and lse_j the log of its softmax denominator, the whole attention
is Σ_j exp(lse_j − lse) · o_j, lse = log Σ_j exp(lse_j).

The plan's exchange instruction (`ringSteps`, docs/plan-format.md) is the ring: member i of its
`devices` sends to i+1 and receives from i−1, so at step s it receives the chunk of member i−s.
The backward returns the keys' and values' gradients the same way, a ring reduce-scatter: the
accumulator for member o starts at o+1 and gathers every other member's gradient on its way back
to o in the same number of steps."""
import threading

import torch
import torch.distributed as dist

from .model import Block
from .scheduler import RunError

# Drills of the verdict (STAGECRAFT_RUNTIME_RING_FAULT): the chunks attended with another step's
# sequence positions, or the partial outputs averaged instead of merged by log-sum-exp.
FAULTS = ("reorder", "merge")


def block_attention(q, keys, q_positions, k_positions, scale):
    """Causal attention of queries q over one chunk of keys (the values are the keys): the output
    normalised within the chunk and its log-sum-exp. A query that sees none of the chunk gets the
    dtype's lowest score everywhere, not −inf, so its weight in the merge is 0 and no NaN reaches
    the gradient."""
    scores = (q @ keys.T) * scale
    causal = q_positions.unsqueeze(1) >= k_positions.unsqueeze(0)
    scores = scores.masked_fill(~causal, torch.finfo(scores.dtype).min)
    lse = torch.logsumexp(scores, dim=1)
    return torch.exp(scores - lse.unsqueeze(1)) @ keys, lse


def merged(parts, fault=None):
    """The attention over every chunk from each chunk's (output, log-sum-exp)."""
    if fault == "merge":
        return sum(o for o, _ in parts) / len(parts)
    lse = torch.logsumexp(torch.stack([l for _, l in parts]), dim=0)
    return sum(torch.exp(l - lse).unsqueeze(1) * o for o, l in parts)


def ring_forward(block, x, chunks, positions, fault=None):
    """A SequenceBlock's forward on this member's rows x (at `positions`), its attention over
    `chunks` ((keys, their positions), its own first) block by block."""
    q = x @ block.query
    scale = 1 / x.shape[1] ** 0.5
    parts = [block_attention(q, k, positions, kp, scale) for k, kp in chunks]
    return Block.forward(block, x) + merged(parts, fault)


class RingPass:
    """The point-to-point steps of one ring exchange, as one work handle the scheduler waits on
    (in a waiter thread, or on the loop when nothing else can run). `first()` is what this member
    sends at the first step, `then(k, received)` what it sends at step k + 1; `ready` is set once
    `first` can be read (the backward's gradients exist)."""

    def __init__(self, name, steps, group, peers, tag, first, then, ready=None):
        self.name = name
        self.steps = steps
        self.group = group
        self.next, self.prev = peers
        self.tag = tag
        self.first = first
        self.then = then
        self.ready = ready
        self.received = []

    def wait(self, timeout=None):
        if self.ready is not None and not self.ready.is_set():
            if threading.current_thread() is threading.main_thread():
                raise RunError(f"{self.name}: waited for before the backward whose gradients it passes on")
            if not self.ready.wait(timeout.total_seconds() if timeout is not None else None):
                raise RunError(f"{self.name}: the backward whose gradients it passes on never ran")
        out = self.first().contiguous()
        for k in range(1, self.steps + 1):
            got = torch.empty_like(out)
            recv = dist.irecv(got, src=self.prev, group=self.group, tag=self.tag)
            send = dist.isend(out, dst=self.next, group=self.group, tag=self.tag)
            for work in (recv, send):
                work.wait() if timeout is None else work.wait(timeout)
            self.received.append(got)
            if k < self.steps:
                out = self.then(k, got).contiguous()


def ring_peers(devices, rank):
    """(next, previous) member of `rank` around the ring of `devices`, and its position."""
    p = devices.index(rank)
    n = len(devices)
    return (devices[(p + 1) % n], devices[(p - 1) % n]), p


def ring_tag(block, microbatch, kind):
    """A tag per exchange, so the steps of exchanges in flight together never take each other's
    messages (kind: 0 the forward's K/V, 1 the backward's, 2 their gradients)."""
    return ((block * 4096 + microbatch) * 3 + kind) % (2**31)

