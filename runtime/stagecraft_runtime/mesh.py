"""Device meshes (plan@3): a group's members laid row-major over named axes. A group lowered once
lists its representative's sub-groups, so a replica finds its own by keeping its coordinates on
the axes a collective does not run over; members read different data only along the axes their
gradients are reduced over."""
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
    varies = _varying_axes(devices, group, shape)
    out = []
    for c in listed:
        at = [c[a] if a in varies else mine[a] for a in range(len(shape))]
        out.append(group[position(at, shape)])
    return out


def replica_program(program, plan, rank):
    """The representative's program with each collective over `rank`'s own sub-group, its key
    naming `rank`'s shared coordinates (what a timeout reports). One reaching outside the group
    (DualPipe's copies) runs among the members of `rank`'s place in every group it spans, as a
    SEND/RECV's peer is: the devices holding the same data replica."""
    group, mesh = mesh_of(plan, rank)
    if group is None:
        return program
    if mesh is None and not _reaches_outside(program, group):
        return program
    program = copy.deepcopy(program)
    r = group.index(rank)
    mine = coords(r, mesh["shape"]) if mesh is not None else None
    for stream in program["streams"]:
        for ins in stream["instructions"]:
            for m in ins.get("members", [ins]):
                if m["op"] in COLLECTIVES and not all(d in group for d in m["devices"]):
                    m["devices"] = replica_members(m["devices"], plan, group, mesh, rank)
                    if m.get("collective", m["id"]) != m["id"]:
                        label = ",".join(f"{x}={c}" for x, c in zip(mesh["axes"], mine)) if mesh else f"rank={r}"
                        m["collective"] = f"{m['id']}[{label}]"
                elif m["op"] in COLLECTIVES and mesh is not None:
                    listed = m["devices"]
                    m["devices"] = replica_members(listed, plan, group, mesh, rank)
                    if m.get("collective", m["id"]) != m["id"]:
                        varies = _varying_axes(listed, group, mesh["shape"])
                        shared = [f"{x}={mine[a]}" for a, x in enumerate(mesh["axes"]) if a not in varies]
                        label = ",".join(shared)
                        m["collective"] = f"{m['id']}[{label}]"
    return program


def replica_members(devices, plan, group, mesh, rank):
    """The members `rank`, a replica of its group's representative, runs a collective listed over
    `devices` with: the devices at its place in each group the collective spans when it reaches
    outside the group (DualPipe's copies, paired by data replica), else its own sub-group on a
    mesh, else the list itself. The one rule the executor (replica_program) and the agreement
    check before launching (agreement.py) both follow."""
    if not all(d in group for d in devices):
        r = group.index(rank)
        return sorted(_group_of(plan, d)[r] for d in devices)
    if mesh is not None:
        return own_subgroup(list(devices), group, mesh, rank)
    return list(devices)


def _reaches_outside(program, group):
    return any(m["op"] in COLLECTIVES and not all(d in group for d in m["devices"])
               for s in program["streams"] for ins in s["instructions"] for m in ins.get("members", [ins]))


def _group_of(plan, device):
    return next(g for g in plan["groups"] if device in g)


def _varying_axes(devices, group, shape):
    cs = [coords(group.index(d), shape) for d in devices]
    return {a for a in range(len(shape)) if any(c[a] != cs[0][a] for c in cs)}


def region_devices(plan, region, rank):
    """The devices of a `tensorParallel` entry as `rank` runs it: the entry's own when `rank` is in
    it, `rank`'s sub-group when the entry is its representative's (a group lowered once), else
    None."""
    if rank in region["devices"]:
        return region["devices"]
    group, mesh = mesh_of(plan, rank)
    if mesh is not None and all(d in group for d in region["devices"]):
        own = own_subgroup(region["devices"], group, mesh, rank)
        if rank in own:
            return own
    return None


def data_axes(plan, gi):
    """The axes of group gi's mesh that its gradient collectives (those carrying `params`) run
    over: members that differ there read different data. Collectives reaching outside the group
    (DualPipe's copies) say nothing about its mesh."""
    group, shape = plan["groups"][gi], plan["meshes"][gi]["shape"]
    axes = set()
    for dev in plan["devices"]:
        if dev.get("group") != gi:
            continue
        for stream in dev["streams"]:
            for ins in stream["instructions"]:
                for m in ins.get("members", [ins]):
                    if m["op"] not in COLLECTIVES or not m.get("params"):
                        continue
                    if not all(d in group for d in m["devices"]):
                        continue
                    axes.update(_varying_axes(m["devices"], group, shape))
        break  # every member (or the representative alone) runs the same program
    return sorted(axes)


def data_slot(plan, rank):
    """(replica, counts_loss): which data `rank` reads, and whether its loss is the one counted for
    that data. On a mesh the replica is the member's coordinates over the data-parallel axes
    (row-major); members that differ only on other axes (tensor parallel, or unused) read the same
    data and count its loss once. In a flat group it is the member's index (modulo the
    data-parallel degree), as in plan@2."""
    replicas = plan["batch"]["replicas"]
    group, mesh = mesh_of(plan, rank)
    if group is None:
        return 0, True
    if mesh is None:
        i = group.index(rank)
        if any(rank in r["devices"] for r in plan.get("contextParallel", [])):
            return 0, True  # a flat group's context parallelism splits its one sample
        return i % replicas, i < replicas
    gi = plan["groups"].index(group)
    shape = mesh["shape"]
    # Context-parallel members read one sample, each its own rows, and each counts its rows' loss.
    sequence = sequence_axes(plan, gi)
    axes = [a for a in data_axes(plan, gi) if a not in sequence]
    c = coords(group.index(rank), shape)
    i = position([c[a] for a in axes], [shape[a] for a in axes])
    others_zero = all(c[a] == 0 for a in range(len(shape)) if a not in axes and a not in sequence)
    return i % replicas, others_zero and i < replicas


def sequence_axes(plan, gi):
    """The axes of group gi's mesh its `contextParallel` entries run over."""
    group, shape = plan["groups"][gi], plan["meshes"][gi]["shape"]
    axes = set()
    for region in plan.get("contextParallel", []):
        if all(d in group for d in region["devices"]):
            axes.update(_varying_axes(region["devices"], group, shape))
    return axes


class SubGroups:
    """`replica_members` for many ranks of one group, the group's positions, coordinates and each
    listed collective's varying axes computed once (the agreement check asks for every rank of a
    8,192-device plan, where recomputing them per rank made it quadratic)."""

    def __init__(self, plan, group, mesh):
        self.plan = plan
        self.group = group
        self.mesh = mesh
        self.position = {d: i for i, d in enumerate(group)}
        self.shape = mesh["shape"] if mesh is not None else None
        self.coords = [coords(i, self.shape) for i in range(len(group))] if mesh is not None else None
        self.listed = {}  # devices -> (varying axes, the listed members' coordinates)
        self.group_of = None  # device -> its group, for collectives reaching outside this one

    def members(self, devices, rank):
        pos = self.position
        if not all(d in pos for d in devices):
            if self.group_of is None:
                self.group_of = {d: g for g in self.plan["groups"] for d in g}
            r = pos[rank]
            return sorted(self.group_of[d][r] for d in devices)
        if self.mesh is None:
            return list(devices)
        key = tuple(devices)
        found = self.listed.get(key)
        if found is None:
            listed = [self.coords[pos[d]] for d in devices]
            varies = [a for a in range(len(self.shape)) if any(c[a] != listed[0][a] for c in listed)]
            found = self.listed[key] = (varies, listed)
        varies, listed = found
        at = list(self.coords[pos[rank]])
        out = []
        for c in listed:
            for a in varies:
                at[a] = c[a]
            out.append(self.group[position(at, self.shape)])
        return out

