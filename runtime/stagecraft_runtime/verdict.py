"""Whether a run trained like one device: every tensor each device holds itself (every replica's
copy, every ZeRO member's own chunk, never completed for it), the gradients each UPD stepped, and
the loss of every step, each against the single-device reference within the tolerance of the
run's dtype (docs/runtime.md says where the tolerances come from)."""
import torch

from .mesh import mesh_of
from .model import Setup
from .reference import run_reference

# Largest relative difference ‖x − x_ref‖ / ‖x_ref‖ of any tensor that still counts as equal.
# float64: clean runs of every runnable example and test plan stay ≤ 3.9e-13, the corruptions of
# tests/test_corruptions.py differ by ≥ 0.1 (≥ 3e-6 in the parameters alone): 1e-9 is 3 orders of
# magnitude from both. float32: clean runs reach 8.9e-5 (Adam divides by √v, which amplifies
# rounding in small gradients), so 1e-3; a corruption smaller than that is seen in float64 only.
# Measured: docs/runtime.md, "The verdict".
TOLERANCE = {"float64": 1e-9, "float32": 1e-3}
WORST = 5  # tensors named when a run fails


def _members(ins):
    return ins.get("members", [ins])


def _instructions(plan):
    for dev in plan["devices"]:
        for s in dev["streams"]:
            for ins in s["instructions"]:
                for m in _members(ins):
                    yield dev, m


def data_parallel_degree(plan):
    """Replicas of the batch, read off the gradient collectives: the most members of one that
    carries parameters' gradients within a group (a collective reaching across groups, DualPipe's
    copies', joins copies of one model, not replicas)."""
    degree = 1
    for dev, m in _instructions(plan):
        if m["op"] in ("ALL_REDUCE", "REDUCE_SCATTER") and m.get("params"):
            group = mesh_of(plan, dev["device"])[0] or []
            if all(d in group for d in m["devices"]):
                # Context-parallel members in it share one sequence: not replicas of the batch.
                members = set(m["devices"])
                cp = max([len(members & set(r["devices"])) for r in plan.get("contextParallel", [])] or [1])
                degree = max(degree, len(members) // max(cp, 1))
    return degree


def reference_batch(plan, design_batch=None):
    """The batch the reference runs: the design's when given, else read off the instructions
    (microbatches from the forwards, replicas from the gradient collectives); the loss scale is
    the mean over the global batch, 1 / (microbatches × replicas), as the compiler defines it
    (packages/passes/src/lower/runtimeModel.ts). Never the header of the plan under test, so a
    header that lies about them is seen."""
    if design_batch is not None:
        m, size, r = design_batch["microbatches"], design_batch["microbatchSize"], design_batch["replicas"]
    else:
        m = len({x["microbatch"] for _d, x in _instructions(plan) if x["op"] == "F"}) or 1
        size, r = plan["batch"]["microbatchSize"], data_parallel_degree(plan)
    return dict(plan["batch"], microbatches=m, microbatchSize=size, replicas=r, lossScale=1.0 / (m * r))


def _slice(t, name, tp):
    """A tensor-parallel member's slice of a whole block's parameter (model.Block's split)."""
    if tp is None:
        return t
    r, n = tp
    if name == "bias2":
        return t
    cols = lambda k: slice(r * k // n, (r + 1) * k // n)  # noqa: E731
    if name == "weight1":
        return t[:, cols(t.shape[1])]
    if name == "bias1":
        return t[cols(t.shape[0])]
    if name == "weight2":
        return t[cols(t.shape[0]), :]
    return t


def expected(names, chunk, table):
    """What a device should hold for `names` (one whole tensor, or `chunk` = (index, members) of
    their flat concatenation, padded to a multiple of the members) from the reference's `table`."""
    parts = [_slice(table[(b, name)], name, tp) for b, name, tp in names]
    if chunk is None:
        return parts[0]
    me, n = chunk
    flat = torch.cat([p.reshape(-1) for p in parts])
    flat = torch.nn.functional.pad(flat, (0, (-flat.numel()) % n))
    c = flat.numel() // n
    return flat[me * c : (me + 1) * c]


def label(names, chunk):
    if chunk is None:
        b, name, tp = names[0]
        return f"block {b} {name}" + (f" (tensor-parallel slice {tp[0] + 1}/{tp[1]})" if tp else "")
    blocks = sorted({b for b, _n, _tp in names})
    return f"blocks {blocks} chunk {chunk[0] + 1}/{chunk[1]}"


def _difference(x, ref):
    x = x.to(ref.dtype)
    if x.shape != ref.shape:
        return None, f"shape {list(x.shape)}, expected {list(ref.shape)}"
    d = (x - ref).norm().item()
    scale = ref.norm().item()
    if scale == 0:
        return ((0.0, 0.0), None) if d == 0 else (None, f"expected zeros, got a norm of {d:.3g}")
    return (d, d / scale), None


def judge(plan, ranks, opts):
    """The comparison's figures and verdict: {maxAbsDiff, maxRelDiff, tolerance, equal, worst,
    referenceLoss}."""
    dtype_name = opts.get("dtype", "float64")
    dtype = torch.float64 if dtype_name == "float64" else torch.float32
    steps = opts.get("steps", 3)
    batch = reference_batch(plan, opts.get("referenceBatch"))
    setup = Setup(dict(plan, batch=batch), width=opts.get("width", 16), rows=opts.get("rows", 2),
                  seed=opts.get("seed", 0), dtype=dtype)
    ref_loss, ref_grads, ref_params = run_reference(setup, steps)
    rows = []  # (rel, abs, device, tensor, step, problem)

    def compare(device, names, chunk, x, table, what, step):
        try:
            ref = expected(names, chunk, table)
        except KeyError as e:
            rows.append((None, None, device, f"{what} of {label(names, chunk)}", step, f"the model has no {e}"))
            return
        figures, problem = _difference(x, ref)
        rel, d = (figures[1], figures[0]) if figures else (None, None)
        rows.append((rel, d, device, f"{what} of {label(names, chunk)}", step, problem))

    held = set()
    for r in ranks:
        device = r["rank"]
        for names, chunk, x in r["params"]:
            held.update((b, n) for b, n, _tp in names)
            compare(device, names, chunk, x, ref_params, "parameters", steps - 1)
        if r["params"]:
            for step in range(steps):
                if step not in r["gradients"]:
                    rows.append((None, None, device, "gradients", step, "no UPD ran"))
        for step, grads in r["gradients"].items():
            for names, chunk, x in grads:
                compare(device, names, chunk, x, ref_grads[step] if step < steps else {}, "gradient", step)
    for b, n in sorted(set(ref_params) - held):
        rows.append((None, None, None, f"parameters of block {b} {n}", steps - 1, "held by no device"))
    for step, (got, want) in enumerate(zip(ranks[0]["loss"] if ranks else [], ref_loss)):
        d = abs(got - want)
        rows.append((d / abs(want), d, None, "loss", step, None) if want else (None, d, None, "loss", step, "zero reference loss"))
    tolerance = TOLERANCE[dtype_name]
    numeric = [x for x in rows if x[0] is not None]
    failing = [x for x in rows if x[0] is None or x[0] > tolerance]
    failing.sort(key=lambda x: (x[0] is not None, -(x[0] or 0.0)))
    worst = []
    for rel, d, device, tensor, step, problem in failing[:WORST]:
        entry = {"device": device, "tensor": tensor, "step": step, "difference": rel, "absolute": d}
        if problem:
            entry["problem"] = problem
        worst.append(entry)
    return {
        "referenceLoss": ref_loss,
        "referenceBatch": {k: batch[k] for k in ("microbatches", "microbatchSize", "replicas", "lossScale")},
        "maxAbsDiff": max((x[1] for x in numeric), default=0.0),
        "maxRelDiff": max((x[0] for x in numeric), default=0.0),
        "tolerance": tolerance,
        "equal": not failing,
        "compared": len(rows),
        "worst": worst,
    }
