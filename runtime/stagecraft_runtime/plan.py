"""Reading a plan the runtime can run: the format version, the @2 fields it reads and @3's meshes,
checked before any tensor exists, so a plan it cannot run fails with the path of what is missing."""
import json

from .zero import layout_conflict

FORMATS = ("stagecraft/plan@2", "stagecraft/plan@3")
COMPUTE = {"F", "B", "BI", "BW", "RECOMPUTE", "UPD"}
COLLECTIVES = {"ALL_REDUCE", "REDUCE_SCATTER", "ALL_GATHER", "ALL_TO_ALL"}


class PlanError(Exception):
    """A plan this runtime refuses, with the JSON path of the first problem."""


def load(path):
    with open(path, encoding="utf-8") as f:
        try:
            plan = json.load(f)
        except json.JSONDecodeError as e:
            raise PlanError(f"{path}: not JSON ({e})") from None
    check(plan)
    return plan


def check(plan):
    if not isinstance(plan, dict):
        raise PlanError("plan: not an object")
    fmt = plan.get("format")
    if fmt not in FORMATS:
        hint = " (recompile the design: version 1 has no model or batch)" if fmt == "stagecraft/plan@1" else ""
        expected = " or ".join(f'"{f}"' for f in FORMATS)
        raise PlanError(f"format: expected {expected}, got {json.dumps(fmt)}{hint}")
    for key in ("model", "batch", "devices", "groups"):
        if key not in plan:
            raise PlanError(f"{key}: missing")
    if fmt == "stagecraft/plan@3":
        _check_meshes(plan)
    blocks = plan["model"].get("blocks")
    if not isinstance(blocks, list) or not blocks:
        raise PlanError("model.blocks: missing or empty")
    for k in ("microbatches", "microbatchSize", "replicas", "lossScale", "dims"):
        if k not in plan["batch"]:
            raise PlanError(f"batch.{k}: missing")
    for d, dev in enumerate(plan["devices"]):
        conflict = layout_conflict(dev)
        if conflict is not None:
            g, r = conflict
            raise PlanError(
                f"devices[{d}]: {g['id']} gathers blocks {g['params']} but {r['id']} shards the gradients of "
                f"blocks {r['params']}: the parameter chunks would not line up (recompile: ZeRO-3 keeps one "
                "block per bucket)"
            )
        for s, stream in enumerate(dev.get("streams", [])):
            for k, ins in enumerate(stream["instructions"]):
                where = f"devices[{d}].streams[{s}].instructions[{k}]"
                for m, member in enumerate(ins.get("members", [ins])):
                    _check_instruction(member, where if member is ins else f"{where}.members[{m}]", blocks)
        _check_chunk_cover(dev, d)


def _check_meshes(plan):
    """Version 3's `meshes`: one per group, each a shape over exactly the group's members."""
    meshes = plan.get("meshes")
    if not isinstance(meshes, list) or len(meshes) != len(plan["groups"]):
        raise PlanError(f"meshes: expected one entry (a mesh or null) per group ({len(plan['groups'])})")
    for gi, mesh in enumerate(meshes):
        if mesh is None:
            continue
        if not isinstance(mesh, dict):
            raise PlanError(f"meshes[{gi}]: expected {{axes, shape}} or null")
        shape, axes = mesh.get("shape"), mesh.get("axes")
        if not isinstance(shape, list) or not isinstance(axes, list) or len(shape) != len(axes) or not shape:
            raise PlanError(f"meshes[{gi}]: expected {{axes, shape}} with one size per axis")
        size = 1
        for n in shape:
            if not isinstance(n, int) or n < 1:
                raise PlanError(f"meshes[{gi}].shape: {shape} has a size that is not a positive integer")
            size *= n
        if size != len(plan["groups"][gi]):
            raise PlanError(f"meshes[{gi}].shape: {shape} holds {size} members, group {gi} has {len(plan['groups'][gi])}")


def _check_instruction(ins, where, blocks):
    op = ins.get("op")
    need = []
    if op in COMPUTE and op != "UPD" or op in ("OFFLOAD", "RELOAD"):
        need = ["block", "microbatch"]
    elif op in ("SEND", "RECV"):
        need = ["tensor", "peer"]
    elif op in COLLECTIVES:
        if "params" not in ins and "tensor" not in ins:
            raise PlanError(
                f"{where} ({ins.get('id')}): a {op} with neither `params` nor `tensor` is not run by this "
                "runtime: it cannot tell what the collective carries (recompile: comm_overlap's chunks "
                "carry their `tensor` since plans of this runtime)"
            )
        _check_chunks(ins, where)
    for key in need:
        if key not in ins:
            raise PlanError(f"{where}.{key}: missing ({ins.get('id')})")
    b = ins.get("block", ins.get("tensor", {}).get("block"))
    if b is not None and not 0 <= b < len(blocks):
        raise PlanError(f"{where}.block: {b} is not a block of model.blocks")


def _check_chunks(ins, where):
    chunks = ins.get("chunks")
    if chunks is None:
        return
    if ins["op"] not in ("REDUCE_SCATTER", "ALL_GATHER") or "tensor" not in ins:
        raise PlanError(f"{where}.chunks: only a REDUCE_SCATTER or ALL_GATHER of a `tensor` carries chunks ({ins.get('id')})")
    c = [chunks.get(k) for k in ("from", "to", "of")]
    if not all(isinstance(x, int) for x in c) or not 0 <= c[0] < c[1] <= c[2]:
        raise PlanError(f"{where}.chunks: expected integers 0 ≤ from < to ≤ of, got {json.dumps(chunks)} ({ins.get('id')})")


def _check_chunk_cover(dev, d):
    """A device's chunked collectives of one tensor carry each of its chunks exactly once."""
    seen = {}
    for s, stream in enumerate(dev.get("streams", [])):
        for k, ins in enumerate(stream["instructions"]):
            c = ins.get("chunks")
            if c is None:
                continue
            t = ins["tensor"]
            key = (ins["op"], t["block"], t["pass"], t["microbatch"], c["of"])
            got = seen.setdefault(key, [0] * c["of"])
            for i in range(c["from"], c["to"]):
                got[i] += 1
    for (op, block, pas, mb, of), got in seen.items():
        wrong = [i for i, x in enumerate(got) if x != 1]
        if wrong:
            what = "output" if pas == "F" else "input gradient"
            raise PlanError(
                f"devices[{d}]: the {op}s of block {block}'s {what} (microbatch {mb}) carry chunks {wrong} of {of} "
                f"{'more than once' if got[wrong[0]] else 'in none'}: each chunk of a tensor's rows goes exactly once"
            )


def device_program(plan, rank):
    """The streams device `rank` runs and the map from the listed device's peers to its own: a
    device listed as a replica runs the program of its group's first member with peers of its rank."""
    groups = plan["groups"]
    for dev in plan["devices"]:
        if dev["device"] == rank:
            return dev, (lambda p: p)
        reps = dev.get("replicas") or []
        if rank in reps:
            r = reps.index(rank) + 1
            group_of = {d: gi for gi, g in enumerate(groups) for d in g}

            def peer(p, r=r):
                g = groups[group_of[p]]
                return g[r] if r < len(g) else p

            return dev, peer
    return None, None


def device_count(plan):
    """Processes a run needs: up to the highest device the plan uses (a cluster's unused devices
    at the end, group -1, need none)."""
    n = 1
    for dev in plan["devices"]:
        if dev.get("group", -1) >= 0:
            n = max(n, dev["device"] + 1, *[x + 1 for x in dev.get("replicas") or [0]])
    return n
