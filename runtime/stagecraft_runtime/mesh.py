"""Device meshes (plan@3): a group's members laid row-major over named axes. A group lowered once
lists its representative's sub-groups, so a replica finds its own by keeping its coordinates on
the axes a collective does not run over; members that share a tensor-parallel sub-group read the
same data, so a member's data replica counts the others."""
import copy

from .plan import COLLECTIVES


def coords(pos, shape):
    out = []
    for size in reversed(shape):
        out.append(pos % size)
        pos //= size
    return out[::-1]


def position(c, shape):
    pos = 0
    for x, size in zip(c, shape):
        pos = pos * size + x
    return pos


def mesh_of(plan, rank):
    """(group, mesh) of the group holding `rank`; mesh None for a flat group or a plan@2."""
    meshes = plan.get("meshes") or []
    for gi, g in enumerate(plan["groups"]):
        if rank in g:
            return g, meshes[gi] if gi < len(meshes) else None
    return None, None


def own_subgroup(devices, group, mesh, rank):
    """The sub-group `rank` runs a collective in whose representative lists `devices`: the listed
    members' coordinates on the axes they vary along, `rank`'s on the others."""
    shape = mesh["shape"]
    listed = [coords(group.index(d), shape) for d in devices]
    mine = coords(group.index(rank), shape)
    varies = [any(c[a] != listed[0][a] for c in listed) for a in range(len(shape))]
    out = []
    for c in listed:
        at = [c[a] if varies[a] else mine[a] for a in range(len(shape))]
        out.append(group[position(at, shape)])
    return out


def replica_program(program, plan, rank):
    """The representative's program with each collective over `rank`'s own sub-group."""
    group, mesh = mesh_of(plan, rank)
    if mesh is None:
        return program
    program = copy.deepcopy(program)
    for stream in program["streams"]:
        for ins in stream["instructions"]:
            for m in ins.get("members", [ins]):
                if m["op"] in COLLECTIVES:
                    m["devices"] = own_subgroup(m["devices"], group, mesh, rank)
    return program


def region_devices(plan, region, rank):
    """The devices of a `tensorParallel` entry as `rank` runs it: the entry's own when `rank` is in
    it, `rank`'s sub-group when the entry is its representative's (a group lowered once), else None."""
    if rank in region["devices"]:
        return region["devices"]
    group, mesh = mesh_of(plan, rank)
    if mesh is not None and all(d in group for d in region["devices"]):
        own = own_subgroup(region["devices"], group, mesh, rank)
        if rank in own:
            return own
    return None


def tensor_parallel_subgroup(plan, rank):
    """The first tensor-parallel sub-group holding `rank`, or None."""
    for region in plan.get("tensorParallel", []):
        devices = region_devices(plan, region, rank)
        if devices is not None:
            return devices
    return None


def data_slot(plan, rank):
    """(replica, counts_loss): which data `rank` reads, and whether its loss is the one counted for
    that data. Members of one tensor-parallel sub-group read the same data and count it once; in
    a flat group the replica is the member's index (modulo the data-parallel degree)."""
    replicas = plan["batch"]["replicas"]
    group, mesh = mesh_of(plan, rank)
    if group is None:
        return 0, True
    if mesh is None:
        i = group.index(rank)
        return i % replicas, i < replicas
    firsts = []
    for d in group:
        tp = tensor_parallel_subgroup(plan, d)
        first = tp[0] if tp else d
        if first not in firsts:
            firsts.append(first)
    tp = tensor_parallel_subgroup(plan, rank)
    first = tp[0] if tp else rank
    i = firsts.index(first)
    return i % replicas, first == rank and i < replicas
