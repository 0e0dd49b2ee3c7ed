"""What a run needs of this machine, checked before any process starts: one process per device
that the machine can hold (a CPU each with gloo, a GPU each with NCCL), tensors that fit in its
available memory, and a batch header that agrees with the instructions (the single-device reference
loops over the header's microbatches and replicas). Each refusal gives its numbers."""
import os

from .agreement import listed_devices
from .plan import COLLECTIVES

GIB = 1024**3
# Rows of data per sample (model.Setup's default `rows`).
ROWS = 2


class LaunchError(Exception):
    """A run refused before it starts, or one that failed, with the reason in one line."""


def oversubscribing(opts):
    """--oversubscribe, or STAGECRAFT_RUNTIME_OVERSUBSCRIBE=1 (CI on a machine with fewer CPUs
    than its test plans have devices)."""
    return bool(opts.get("oversubscribe")) or os.environ.get("STAGECRAFT_RUNTIME_OVERSUBSCRIBE") == "1"


def check_world(world, backend_name, opts, cpus=None, gpus=None):
    if oversubscribing(opts):
        return
    if backend_name == "nccl":
        have, what = (gpus if gpus is not None else _gpus()), "GPUs"
    else:
        have, what = (cpus if cpus is not None else len(os.sched_getaffinity(0))), "CPUs"
    if world > have:
        raise LaunchError(
            f"the plan runs on {world} devices, one process each, and this machine has {have} {what}: "
            "run a design with fewer devices, or pass --oversubscribe to start them all anyway"
        )


def check_batch(plan):
    """The header's microbatches and replicas against what the instructions compute: the reference
    runs replicas × microbatches passes a step, so a header edited to 1e12 would never end."""
    b = plan["batch"]
    for key in ("microbatches", "replicas"):
        if not isinstance(b[key], int) or isinstance(b[key], bool) or b[key] < 1:
            raise LaunchError(f"batch.{key}: expected a positive integer, got {b[key]!r}")
    seen = {ins["microbatch"] for ins in _all_instructions(plan) if ins["op"] == "F"}
    if seen and b["microbatches"] != max(seen) + 1:
        raise LaunchError(
            f"batch.microbatches: {b['microbatches']}, but the plan's forwards run microbatches 0 to {max(seen)}"
        )
    widest = max((len(g) for g in plan["groups"]), default=1)
    if b["replicas"] > widest:
        raise LaunchError(
            f"batch.replicas: {b['replicas']} data-parallel replicas, but the largest group has {widest} devices"
        )


def _all_instructions(plan):
    for dev in plan["devices"]:
        for stream in dev.get("streams", []):
            for ins in stream["instructions"]:
                yield from ins.get("members", [ins])


def block_params(plan, b, width):
    """Elements of block b's parameters (model.py: Block is width × 2·width, 2·width, 2·width ×
    width, width; an experts block holds `experts` of them; a router adds its gate)."""
    blocks = plan["model"]["blocks"]
    mlp = 4 * width * width + 3 * width
    experts = blocks[b].get("experts") or 0
    if experts:
        return experts * mlp
    gate = sum(spec.get("experts") or 0 for spec in blocks if b in spec.get("inputs", []))
    return mlp + width * gate


def block_activations(plan, b, width):
    """Elements one microbatch's forward of block b keeps for its backward: its input, the hidden
    layer before and after tanh (2·width each) and its output, per row; an experts block runs every
    expert it holds on every row once per routed slot (moe.Experts.rows)."""
    spec = plan["model"]["blocks"][b]
    rows = plan["batch"]["microbatchSize"] * ROWS
    per_pass = rows * 6 * width
    experts = spec.get("experts") or 0
    return per_pass * experts * (spec.get("topK") or 1) if experts else per_pass


def tensors_needed(plan, width, dtype_bytes, world):
    """(bytes per running device, bytes of the single-device reference). A device holds, for each
    block it computes or carries, the parameters, their gradients and Adam's two moments, and the
    activations of every forward it runs (all microbatches in flight: an upper bound); the
    reference holds every block so, and one microbatch's activations at a time."""
    blocks = range(len(plan["model"]["blocks"]))
    data = 2 * plan["batch"]["microbatchSize"] * ROWS * width
    per_device = {}
    for _d, dev, ranks in listed_devices(plan, world):
        held, stash = set(), 0
        for stream in dev["streams"]:
            for ins in stream["instructions"]:
                for m in ins.get("members", [ins]):
                    if "block" in m:
                        held.add(m["block"])
                    if m["op"] in COLLECTIVES:
                        held.update(m.get("params", []))
                    if m["op"] == "F":
                        stash += block_activations(plan, m["block"], width) + data
        need = (4 * sum(block_params(plan, b, width) for b in held) + stash) * dtype_bytes
        for rank in ranks:  # a group's replicas hold what its listed member holds
            per_device[rank] = need
    reference = 4 * sum(block_params(plan, b, width) for b in blocks)
    reference += sum(block_activations(plan, b, width) for b in blocks) + data
    return per_device, reference * dtype_bytes


def check_memory(plan, opts, world, backend_name, available=None):
    width = opts.get("width", 16)
    dtype_bytes = 8 if opts.get("dtype") == "float64" else 4
    per_device, reference = tensors_needed(plan, width, dtype_bytes, world)
    biggest = max(per_device, key=per_device.get, default=None)
    if backend_name == "nccl":
        # Each process on its own GPU: the reference still runs on the host.
        gpu = available if available is not None else _gpu_memory()
        if biggest is not None and per_device[biggest] > gpu:
            raise LaunchError(
                f"device {biggest} would hold {_gib(per_device[biggest])} of tensors (--hidden {width}), "
                f"more than its GPU's {_gib(gpu)}"
            )
        workers = 0
    else:
        workers = sum(per_device.values())
    host = available if available is not None else _available_memory()
    # Workers run together; the reference runs after they have gone.
    need = max(workers, reference)
    if host is not None and need > host:
        what = (
            f"the {len(per_device)} devices would hold {_gib(workers)} of tensors together "
            f"(device {biggest} the most: {_gib(per_device[biggest])})"
            if workers >= reference
            else f"the single-device reference would hold {_gib(reference)} of tensors"
        )
        raise LaunchError(
            f"{what} with --hidden {width} and microbatchSize {plan['batch']['microbatchSize']}, "
            f"more than the {_gib(host)} of memory available: lower --hidden, the batch or the model"
        )


def _gib(n):
    return f"{n / GIB:.3g} GiB"


def _available_memory():
    """MemAvailable (Linux), else free physical pages; None where neither is known."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _gpus():
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def _gpu_memory():
    import torch

    return min(torch.cuda.get_device_properties(i).total_memory for i in range(torch.cuda.device_count()))


def preflight(plan, opts, world, backend_name):
    """Everything checked before a launch; the cheap checks first, so a plan with 8,192 devices is
    refused before its programs are expanded."""
    check_world(world, backend_name, opts)
    check_batch(plan)
    check_memory(plan, opts, world, backend_name)
