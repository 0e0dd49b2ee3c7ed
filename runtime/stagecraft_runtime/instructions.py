"""One device's program as typed, frozen instructions, read from the plan's JSON once (after
plan.check and the replica's own sub-groups, mesh.replica_program): peers are ranks of this run,
p2p tags resolved, waits gathered with an OVERLAP's members'. The scheduler and the executor's
parts read fields, never the JSON again."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Mapping, Optional, Tuple, Union

from .plan import COLLECTIVES, PlanError

# The compute ops that run a block's forward or backward on one microbatch (docs/plan-format.md).
BLOCK_OPS = ("F", "B", "BI", "BW", "RECOMPUTE")
# The compute ops that move a microbatch's stash between device and host memory.
STASH_OPS = ("OFFLOAD", "RELOAD")


@dataclass(frozen=True)
class TensorRef:
    """An activation (pass F) or an input gradient (pass B) of one block on one microbatch."""

    block: int
    microbatch: int
    forward: bool

    @property
    def key(self) -> Tuple[int, int]:
        return (self.block, self.microbatch)


@dataclass(frozen=True)
class Compute:
    """F, B, BI, BW, RECOMPUTE, OFFLOAD or RELOAD of one block on one microbatch."""

    id: str
    op: str
    block: int
    microbatch: int
    waits: Tuple[str, ...]

    @property
    def key(self) -> Tuple[int, int]:
        return (self.block, self.microbatch)


@dataclass(frozen=True)
class Update:
    """UPD: the optimizer step on what this device holds."""

    id: str
    waits: Tuple[str, ...]
    op: str = "UPD"


@dataclass(frozen=True)
class Overlap:
    """Compute run together; `waits` holds its own and its members' (plan-format rule 7)."""

    id: str
    members: Tuple[Union[Compute, Update], ...]
    waits: Tuple[str, ...]
    op: str = "OVERLAP"


@dataclass(frozen=True)
class Transfer:
    """One side of a point-to-point message: the tensor, the other rank of this run, its tag;
    `scatter` n > 1 when it carries the sender's 1/n of the tensor's rows (a tensor-parallel
    stage's scatter-gather send, all-gathered after the RECV)."""

    id: str
    tensor: TensorRef
    peer: int
    tag: int
    waits: Tuple[str, ...]
    scatter: int = 1


@dataclass(frozen=True)
class Send(Transfer):
    op: str = "SEND"


@dataclass(frozen=True)
class Recv(Transfer):
    op: str = "RECV"


@dataclass(frozen=True)
class Collective:
    """A collective over `devices` (plan order, this device among them) carrying the gradients or
    parameters of the blocks in `params`, or one tensor (tensor-parallel sums, expert all-to-alls)."""

    id: str
    op: str  # ALL_REDUCE, REDUCE_SCATTER, ALL_GATHER or ALL_TO_ALL
    devices: Tuple[int, ...]
    stream: str  # the stream it runs on: with `devices`, which process group carries it
    name: str  # the `collective` key every member issues it under
    params: Tuple[int, ...]
    tensor: Optional[TensorRef]
    waits: Tuple[str, ...]
    # comm_overlap's part of the tensor: chunks first..last-1 of `of` of each member's rows.
    chunks: Optional[Tuple[int, int, int]] = None
    ring_steps: int = 0  # a K/V exchange of context parallelism's ring form: its point-to-point steps


Instruction = Union[Compute, Update, Overlap, Send, Recv, Collective]
ComputeInstruction = Union[Compute, Update, Overlap]


@dataclass(frozen=True)
class Stream:
    name: str
    instructions: Tuple[Instruction, ...]


@dataclass(frozen=True)
class Program:
    """What one rank runs: its streams, in the plan's order."""

    rank: int
    streams: Tuple[Stream, ...]

    def instructions(self):
        for s in self.streams:
            yield from s.instructions


def parse_program(program: Mapping, rank: int, peer_of: Callable[[int], int], tags: Dict[str, int]) -> Program:
    """The typed program of `rank` from its plan entry (a replica's already over its own
    sub-groups). Raises PlanError with the JSON path of an instruction it cannot type."""
    streams = []
    ids = {m["id"] for s in program["streams"] for ins in s["instructions"] for m in [ins, *ins.get("members", [])]}
    for s, stream in enumerate(program["streams"]):
        out = []
        for k, ins in enumerate(stream["instructions"]):
            where = f"streams[{s}].instructions[{k}] ({ins.get('id')}, device {rank})"
            typed = _instruction(ins, stream["stream"], peer_of, tags, where)
            for w in typed.waits:
                if w not in ids:
                    raise PlanError(f"{where}.waits: {w} is not an instruction of device {rank}")
            out.append(typed)
        streams.append(Stream(stream["stream"], tuple(out)))
    return Program(rank, tuple(streams))


def _tensor(t: Mapping) -> TensorRef:
    return TensorRef(t["block"], t["microbatch"], t["pass"] == "F")


def _instruction(ins, stream, peer_of, tags, where) -> Instruction:
    op = ins.get("op")
    waits = tuple(ins.get("waits", ()))
    if op == "OVERLAP":
        members = []
        for m, member in enumerate(ins.get("members", [])):
            typed = _instruction(member, stream, peer_of, tags, f"{where}.members[{m}]")
            if not isinstance(typed, (Compute, Update)):
                raise PlanError(f"{where}.members[{m}]: {typed.op} is not compute; an OVERLAP runs compute together")
            members.append(typed)
            waits += typed.waits
        return Overlap(ins["id"], tuple(members), waits)
    if op == "UPD":
        return Update(ins["id"], waits)
    if op in BLOCK_OPS or op in STASH_OPS:
        return Compute(ins["id"], op, ins["block"], ins["microbatch"], waits)
    if op in ("SEND", "RECV"):
        kind = Send if op == "SEND" else Recv
        return kind(ins["id"], _tensor(ins["tensor"]), peer_of(ins["peer"]), tags[ins["transfer"]], waits,
                    ins.get("scatter", 1))
    if op in COLLECTIVES:
        tensor = _tensor(ins["tensor"]) if "tensor" in ins else None
        c = ins.get("chunks")
        chunks = (c["from"], c["to"], c["of"]) if c is not None else None
        return Collective(ins["id"], op, tuple(ins["devices"]), stream, ins.get("collective", ins["id"]),
                          tuple(ins.get("params", ())), tensor, waits, chunks, ins.get("ringSteps", 0))
    raise PlanError(f"{where}.op: {op!r} is not an instruction this runtime runs")
