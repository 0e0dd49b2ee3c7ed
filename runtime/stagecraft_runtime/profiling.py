"""Naming the ops of your own training loop so Stagecraft can read its measured step.

Stagecraft's trace import (`stagecraft calibrate`, `stagecraft compare --measured`) matches each
profiler range to a plan instruction by its id. Wrap each op of a rank's program in
`instruction(id)`, profile the step with `measured_step`, and give the per-rank files it writes
(`trace_rank<r>.json`, the rank in the name because torch 1.13's export records none) to the CLI:

    from stagecraft_runtime.profiling import instruction, measured_step

    with measured_step("traces"):
        for ins in rank_program:            # this rank's instructions, in plan order
            with instruction(ins["id"]):
                run(ins)

The same code writes torch 1.13's legacy export and torch >= 2's Kineto JSON; both are read.
"""

from __future__ import annotations

import contextlib
import os
from typing import Iterator, Optional

import torch
import torch.distributed as dist
from torch.profiler import ProfilerActivity, profile, record_function


def instruction(instruction_id: str) -> record_function:
    """A profiler range named by a plan instruction's id (`F.b3.mb5`, `(F.b2.mb5;B.b5.mb1)`)."""
    return record_function(instruction_id)


def trace_path(directory: str, rank: Optional[int] = None) -> str:
    """Where a rank's trace goes: the rank in the file name, as the trace import reads it."""
    if rank is None:
        rank = dist.get_rank() if dist.is_available() and dist.is_initialized() else 0
    return os.path.join(directory, f"trace_rank{rank}.json")


@contextlib.contextmanager
def measured_step(directory: str, rank: Optional[int] = None, cuda: Optional[bool] = None) -> Iterator[None]:
    """Profiles the block's ops on the CPU (and the GPU when there is one) and writes the rank's trace."""
    activities = [ProfilerActivity.CPU]
    if cuda if cuda is not None else torch.cuda.is_available():
        activities.append(ProfilerActivity.CUDA)
    os.makedirs(directory, exist_ok=True)
    with profile(activities=activities) as prof:
        yield
    prof.export_chrome_trace(trace_path(directory, rank))
