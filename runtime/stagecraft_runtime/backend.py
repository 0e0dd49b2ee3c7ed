"""Everything that differs between a GPU cluster and this CPU machine, in one place: the
process-group backend (NCCL with CUDA tensors on `cuda:<local rank>`, gloo on the CPU), which
native collectives the backend has (NCCL and torch ≥ 2 have reduce-scatter and all-gather into
one tensor; gloo on torch 1.13 has neither, so collectives.py builds them from all_reduce and the
list all_gather), where OFFLOAD puts a stash, and how a time is read (a GPU works asynchronously:
the clock is read after synchronizing). The executor, the blocks and the plan rules never ask."""
import datetime
from dataclasses import dataclass, field

import torch
import torch.distributed as dist

BACKENDS = ("auto", "gloo", "nccl")

# Native collectives by the operation they do, newest name first (torch 1.13 has the underscored
# ones on NCCL; torch ≥ 2 names them reduce_scatter_tensor / all_gather_into_tensor).
NATIVE_NAMES = {
    "reduce_scatter": ("reduce_scatter_tensor", "_reduce_scatter_base"),
    "all_gather": ("all_gather_into_tensor", "_all_gather_base"),
}


class BackendError(Exception):
    """A backend this machine cannot give (NCCL asked for without CUDA)."""


@dataclass(frozen=True)
class Backend:
    name: str  # the torch.distributed backend: "gloo" or "nccl"
    device: torch.device  # where blocks, data and buffers live
    native: dict = field(default_factory=dict)  # operation -> the torch.distributed function's name
    # Read after every communication's wait: a field, not a torch.device attribute read each time.
    cuda: bool = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "cuda", self.device.type == "cuda")

    def init(self, rank, world, timeout):
        if self.cuda:
            torch.cuda.set_device(self.device)
        dist.init_process_group(self.name, rank=rank, world_size=world, timeout=timeout)

    def sync(self):
        """Waits for the device's queued work, so a clock read after it means the work is done."""
        if self.cuda:
            torch.cuda.synchronize(self.device)

    def wait(self, work, timeout=None):
        """Blocks until a communication has really finished (on NCCL, `wait` only orders the stream).
        With `timeout` (seconds) it raises once that has passed; gloo then aborts the process
        group, so a timeout is for a run that is failing anyway."""
        if timeout is None:
            work.wait()
        else:
            work.wait(datetime.timedelta(seconds=timeout))
        self.sync()

    def to_host(self, t):
        """Where OFFLOAD keeps a stash: pinned host memory on a GPU (so RELOAD copies at full speed)."""
        host = t.to("cpu", copy=True)
        return host.pin_memory() if self.cuda else host


def choose(requested="auto", cuda_available=False, nccl_available=False, local_rank=0, available=()):
    """The backend for a request: "auto" takes NCCL on `cuda:<local rank>` when CUDA and NCCL are
    there, else gloo on the CPU; "nccl" without them is refused with the reason. `available`: the
    names torch.distributed has (which native collectives can be used)."""
    if requested not in BACKENDS:
        raise BackendError(f"--backend: expected one of {', '.join(BACKENDS)}, got {requested!r}")
    gpu = cuda_available and nccl_available
    if requested == "nccl" and not gpu:
        why = "CUDA is not available" if not cuda_available else "this torch has no NCCL"
        raise BackendError(f"--backend nccl: {why} (use --backend gloo, or auto to choose)")
    if requested == "nccl" or requested == "auto" and gpu:
        return Backend("nccl", torch.device("cuda", local_rank), natives("nccl", available))
    return Backend("gloo", torch.device("cpu"), natives("gloo", available))


def natives(backend, available):
    """Native collectives to call: those torch.distributed has, on a backend that implements them
    (gloo on torch 1.13 exports the names but fails at run time, so gloo gets the constructions)."""
    if backend == "gloo":
        return {}
    out = {}
    for op, names in NATIVE_NAMES.items():
        for name in names:
            if name in available:
                out[op] = name
                break
    return out


def from_environment(requested="auto", local_rank=0):
    """The backend for this process, from what this machine and this torch have."""
    return choose(
        requested,
        cuda_available=torch.cuda.is_available(),
        nccl_available=dist.is_nccl_available(),
        local_rank=local_rank,
        available=set(dir(dist)),
    )


# The backend of this process's run (collectives.py asks it which native calls to make).
current = Backend("gloo", torch.device("cpu"))


def use(backend):
    global current
    current = backend
