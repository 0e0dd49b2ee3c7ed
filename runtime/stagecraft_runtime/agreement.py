"""What the devices of a plan must agree on before any of them issues anything, the proofs the CLI's
`loadPlan` makes (packages/ir, validatePlan): every wait names an instruction of its own device,
every SEND has its RECV on the peer (and the other way round), every member of a collective's
`devices` issues it. Under torchrun nobody ran the CLI first: without these a one-sided
collective ends only by the no-progress timeout, blamed on whichever device waited."""
from .mesh import SubGroups, mesh_of
from .plan import COLLECTIVES, PlanError


def _instructions(program):
    """(path within the device, instruction) for every instruction and OVERLAP member."""
    for s, stream in enumerate(program["streams"]):
        for k, ins in enumerate(stream["instructions"]):
            yield f"streams[{s}].instructions[{k}]", ins
            for m, member in enumerate(ins.get("members", [])):
                yield f"streams[{s}].instructions[{k}].members[{m}]", member


def listed_devices(plan, world):
    """(index in plan.devices, device entry, the ranks running it) of every device that runs: a
    group lowered once is one entry run by its member and its `replicas`."""
    for d, dev in enumerate(plan["devices"]):
        if dev.get("group", -1) < 0:
            continue
        ranks = [dev["device"], *(dev.get("replicas") or [])]
        yield d, dev, [r for r in ranks if r < world]


def check_agreement(plan, world):
    """Raises PlanError naming the first instruction (device, path, id) the others cannot match.
    A replica's program is its entry's, read in place (never copied: the DeepSeek-V3 examples have
    2,048 ranks), each collective over the replica's own sub-group (mesh.replica_members), its
    peers those of its index in the peer's group (plan.device_program). Linear in ranks ×
    instructions: the paths of instructions are spelled only for the error, and a collective all
    of whose members run the same entry is checked once per listed member set, not per rank."""
    group_of = {d: g for g in plan["groups"] for d in g}
    sends, recvs, collectives = {}, {}, {}
    for d, dev, ranks in listed_devices(plan, world):
        listed = list(_instructions(dev))
        ids = {ins["id"] for _path, ins in listed}
        for path, ins in listed:
            for w in ins.get("waits", []):
                if w not in ids:
                    raise PlanError(f"devices[{d}].{path} ({ins['id']}, device {dev['device']}).waits: "
                                    f"{w} is not an instruction of device {dev['device']}")

        def where(k, rank, d=d, listed=listed):
            path, ins = listed[k]
            return f"devices[{d}].{path} ({ins['id']}, device {rank})"

        group, mesh = mesh_of(plan, dev["device"])
        subgroups = SubGroups(plan, group, mesh) if group is not None else None
        everyone = [dev["device"], *(dev.get("replicas") or [])]
        p2p = [(k, ins) for k, (_path, ins) in enumerate(listed) if ins["op"] in ("SEND", "RECV")]
        for r, rank in enumerate(everyone):
            if rank >= world:
                continue
            for k, ins in p2p:
                peer = _peer(ins["peer"], r, group_of)
                if not 0 <= peer < world or peer == rank:
                    raise PlanError(f"{where(k, rank)}.peer: {ins['peer']} is not another device of the run")
                if ins["op"] == "SEND":
                    sends.setdefault((rank, peer, ins["transfer"]), []).append((where, k, rank))
                else:
                    recvs.setdefault((peer, rank, ins["transfer"]), []).append((where, k, rank))
        by_devices = {}  # listed members -> [(k, collective key)]
        names = {}  # collective key -> the listed member sets it is issued over here
        for k, (_path, ins) in enumerate(listed):
            if ins["op"] in COLLECTIVES:
                key = ins.get("collective", ins["id"])
                by_devices.setdefault(tuple(ins["devices"]), []).append((k, key))
                names.setdefault(key, set()).add(tuple(ins["devices"]))
        for listed_members, issued in by_devices.items():
            members = {}
            for rank in ranks:
                own = listed_members
                if rank != dev["device"] and group is not None:
                    own = tuple(subgroups.members(listed_members, rank))
                if rank not in own:
                    raise PlanError(f"{where(issued[0][0], rank)}.devices: {list(own)} does not include the device itself")
                members[rank] = own
            alone = all(len(names[key]) == 1 for _k, key in issued)
            if alone and all(m in members for own in members.values() for m in own):
                # Every member runs this entry and issues these collectives over the members it
                # computes itself: they agree when each computes the same members.
                for rank, own in members.items():
                    missing = [m for m in own if members[m] != own]
                    if missing:
                        k, key = issued[0]
                        raise PlanError(f"{where(k, rank)}: collective {key} over devices {list(own)} "
                                        f"is never issued by device(s) {missing}")
                continue
            for rank, own in members.items():
                for k, key in issued:
                    collectives.setdefault((key, own), {}).setdefault(rank, (where, k, rank))
    for key in sends.keys() | recvs.keys():
        src, dst, transfer = key
        s, r = sends.get(key, []), recvs.get(key, [])
        if len(s) != len(r):
            if len(s) > len(r):
                spell, k, rank = s[len(r)]
                raise PlanError(f"{spell(k, rank)}: SEND {transfer} to device {dst} has no RECV there from device {src}")
            spell, k, rank = r[len(s)]
            raise PlanError(f"{spell(k, rank)}: RECV {transfer} from device {src} has no SEND there to device {dst}")
    for (name, members), issued in collectives.items():
        missing = [m for m in members if m not in issued]
        if missing:
            spell, k, rank = next(iter(issued.values()))
            raise PlanError(
                f"{spell(k, rank)}: collective {name} over devices {list(members)} is never issued by device(s) {missing}"
            )


def _peer(p, r, group_of):
    """The peer a replica at index r of its entry's ranks sends to or receives from for a listed
    peer p: the member at the same index of p's group (plan.device_program)."""
    if r == 0:
        return p
    g = group_of[p]
    return g[r] if r < len(g) else p
