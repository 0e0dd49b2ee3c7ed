"""Which parameters a device can hold as its shard alone between uses (ZeRO-3), read from the
instructions only: a bucket (the `params` of an ALL_GATHER) whose every compute waits on an
ALL_GATHER of that bucket (or is the other half of a split backward that does) never needs the
whole parameters except from such a gather to the end of its users, so the whole copy can be freed
in between. Anything else (a compute that no gather precedes, a gradient all-reduce) keeps the
parameters whole, which is correct, just not smaller; a gather and a reduce-scatter that disagree
on the layout make a plan no runtime can run, refused by `layout_conflict`."""

WORKS_ON_PARAMS = {"F", "B", "BI", "BW", "RECOMPUTE"}


def _members(ins):
    return ins.get("members", [ins])


def _waits(ins):
    out = list(ins["waits"])
    for m in ins.get("members", []):
        out += m["waits"]
    return out


def layout_conflict(program):
    """A parameter ALL_GATHER and a REDUCE_SCATTER of this device that carry some block in
    different layouts (different `params`), as (gather, reduce-scatter), or None. After UPD a member
    holds its chunk of the reduce-scatter's layout only, so a gather in another layout would gather
    parameters no member has: such a plan cannot train like one device."""
    instructions = [ins for s in program["streams"] for ins in s["instructions"]]
    scatters = [i for i in instructions if i["op"] == "REDUCE_SCATTER" and i.get("params")]
    for g in instructions:
        if g["op"] != "ALL_GATHER" or not g.get("params"):
            continue
        for r in scatters:
            if set(g["params"]) & set(r["params"]) and list(g["params"]) != list(r["params"]):
                return g, r
    return None


def sharded_buckets(program, exclude=()):
    """{bucket: {gather id: [ids of the instructions that use its gathered copy]}} for every
    bucket this device may hold as a shard; `exclude` names blocks never held so (tensor or expert
    parallel slices)."""
    instructions = [ins for s in program["streams"] for ins in s["instructions"]]
    gathers = [i for i in instructions if i["op"] == "ALL_GATHER" and i.get("params")]
    reductions = [i for i in instructions if i["op"] in ("REDUCE_SCATTER", "ALL_REDUCE") and i.get("params")]
    computes = [i for i in instructions if any(m["op"] in WORKS_ON_PARAMS for m in _members(i))]
    # The top-level instruction running each (block, microbatch, op), to find a BI's BW and back.
    where = {}
    for ins in computes:
        for m in _members(ins):
            if m["op"] in WORKS_ON_PARAMS:
                where[(m["block"], m["microbatch"], m["op"])] = ins["id"]
    waiting = {}
    for ins in computes:
        for w in _waits(ins):
            waiting.setdefault(w, []).append(ins)

    out = {}
    refused = set()
    for g in gathers:
        bucket = tuple(g["params"])
        blocks = set(bucket)
        if blocks & set(exclude):
            refused.add(bucket)
            continue
        uses = []
        for ins in waiting.get(g["id"], []):
            used = [m for m in _members(ins) if m["op"] in WORKS_ON_PARAMS and m["block"] in blocks]
            if not used:
                continue
            uses.append(ins["id"])
            for m in used:
                # A split backward's halves both read the forward's graph, weights included.
                partner = {"BI": "BW", "BW": "BI"}.get(m["op"])
                other = where.get((m["block"], m["microbatch"], partner)) if partner else None
                if other is not None:
                    uses.append(other)
        out.setdefault(bucket, {})[g["id"]] = uses
    for bucket, by_gather in out.items():
        blocks = set(bucket)
        used = {u for uses in by_gather.values() for u in uses}
        every_use_gathered = all(
            ins["id"] in used
            for ins in computes
            if any(m["op"] in WORKS_ON_PARAMS and m["block"] in blocks for m in _members(ins))
        )
        # Gradients must come back in the same layout the parameters are sharded in.
        carried = [r for r in reductions if blocks & set(r["params"])]
        same_layout = bool(carried) and all(
            tuple(r["params"]) == bucket and r["op"] == "REDUCE_SCATTER" for r in carried
        )
        other_gathers = any(blocks & set(g["params"]) and tuple(g["params"]) != bucket for g in gathers)
        if not used or not every_use_gathered or not same_layout or other_gathers:
            refused.add(bucket)
    return {b: uses for b, uses in out.items() if b not in refused}
