"""What the devices of a plan must agree on before any of them issues anything, the proofs the CLI's
`loadPlan` makes (packages/ir, validatePlan): every wait names an instruction of its own device,
every SEND has its RECV on the peer (and the other way round), every member of a collective's
`devices` issues it. Under torchrun nobody ran the CLI first: without these a one-sided
collective ends only by the no-progress timeout, blamed on whichever device waited."""
from .mesh import replica_program
from .plan import COLLECTIVES, PlanError, device_program


def _instructions(program):
    """(path within the device, instruction) for every instruction and OVERLAP member."""
    for s, stream in enumerate(program["streams"]):
        for k, ins in enumerate(stream["instructions"]):
            yield f"streams[{s}].instructions[{k}]", ins
            for m, member in enumerate(ins.get("members", [])):
                yield f"streams[{s}].instructions[{k}].members[{m}]", member


def rank_programs(plan, world):
    """(rank, index of its entry in plan.devices, program, peer map) of every running device, a
    replica with its own sub-groups and peers."""
    index = {id(dev): d for d, dev in enumerate(plan["devices"])}
    for rank in range(world):
        program, peer_of = device_program(plan, rank)
        if program is None or program.get("group", -1) < 0:
            continue
        d = index[id(program)]
        if program["device"] != rank:
            program = replica_program(program, plan, rank)
        yield rank, d, program, peer_of


def check_agreement(plan, world):
    """Raises PlanError naming the first instruction (device, path, id) the others cannot match."""
    sends, recvs, collectives = {}, {}, {}
    for rank, d, program, peer_of in rank_programs(plan, world):
        ids = {ins["id"] for _path, ins in _instructions(program)}
        for path, ins in _instructions(program):
            where = f"devices[{d}].{path} ({ins['id']}, device {rank})"
            for w in ins.get("waits", []):
                if w not in ids:
                    raise PlanError(f"{where}.waits: {w} is not an instruction of device {rank}")
            op = ins["op"]
            if op in ("SEND", "RECV"):
                peer = peer_of(ins["peer"])
                if not 0 <= peer < world or peer == rank:
                    raise PlanError(f"{where}.peer: {ins['peer']} is not another device of the run")
                mine, key = (sends, (rank, peer, ins["transfer"])) if op == "SEND" else (recvs, (peer, rank, ins["transfer"]))
                mine.setdefault(key, []).append(where)
            elif op in COLLECTIVES:
                members = tuple(ins["devices"])
                if rank not in members:
                    raise PlanError(f"{where}.devices: {list(members)} does not include the device itself")
                key = (ins.get("collective", ins["id"]), members)
                collectives.setdefault(key, {}).setdefault(rank, where)
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
