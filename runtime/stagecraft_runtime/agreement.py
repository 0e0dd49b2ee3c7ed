"""What the devices of a plan must agree on before any of them issues anything, the proofs the CLI's
`loadPlan` makes (packages/ir, validatePlan): every wait names an instruction of its own device,
every SEND has its RECV on the peer (and the other way round), every member of a collective's
`devices` issues it. Under torchrun nobody ran the CLI first: without these a one-sided
collective ends only by the no-progress timeout, blamed on whichever device waited."""
from .mesh import mesh_of, replica_members
from .plan import COLLECTIVES, PlanError, device_program


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
    2,048 ranks), each collective over the replica's own sub-group (mesh.replica_program)."""
    sends, recvs, collectives = {}, {}, {}
    for d, dev, ranks in listed_devices(plan, world):
        listed = list(_instructions(dev))
        ids = {ins["id"] for _path, ins in listed}
        for path, ins in listed:
            for w in ins.get("waits", []):
                if w not in ids:
                    raise PlanError(f"devices[{d}].{path} ({ins['id']}, device {dev['device']}).waits: "
                                    f"{w} is not an instruction of device {dev['device']}")
        group, mesh = mesh_of(plan, dev["device"])
        for rank in ranks:
            _program, peer_of = device_program(plan, rank)
            subgroups = {}
            for path, ins in listed:
                op = ins["op"]
                if op not in ("SEND", "RECV") and op not in COLLECTIVES:
                    continue
                where = f"devices[{d}].{path} ({ins['id']}, device {rank})"
                if op in ("SEND", "RECV"):
                    peer = peer_of(ins["peer"])
                    if not 0 <= peer < world or peer == rank:
                        raise PlanError(f"{where}.peer: {ins['peer']} is not another device of the run")
                    if op == "SEND":
                        sends.setdefault((rank, peer, ins["transfer"]), []).append(where)
                    else:
                        recvs.setdefault((peer, rank, ins["transfer"]), []).append(where)
                    continue
                members = tuple(ins["devices"])
                if rank != dev["device"] and group is not None:
                    if members not in subgroups:
                        subgroups[members] = tuple(replica_members(members, plan, group, mesh, rank))
                    members = subgroups[members]
                if rank not in members:
                    raise PlanError(f"{where}.devices: {list(members)} does not include the device itself")
                collectives.setdefault((ins.get("collective", ins["id"]), members), {}).setdefault(rank, where)
    for key in sends.keys() | recvs.keys():
        src, dst, transfer = key
        s, r = sends.get(key, []), recvs.get(key, [])
        if len(s) != len(r):
            if len(s) > len(r):
                raise PlanError(f"{s[len(r)]}: SEND {transfer} to device {dst} has no RECV there from device {src}")
            raise PlanError(f"{r[len(s)]}: RECV {transfer} from device {src} has no SEND there to device {dst}")
    for (name, members), issued in collectives.items():
        missing = [m for m in members if m not in issued]
        if missing:
            first = next(iter(issued.values()))
            raise PlanError(
                f"{first}: collective {name} over devices {list(members)} is never issued by device(s) {missing}"
            )
