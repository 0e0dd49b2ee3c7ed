"""The test plans (compiled by make_plans.sh) and copies of them edited as a hand-edited plan could
be, for the tests that show a wrong plan fails."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def plan_path(name):
    return os.path.join(HERE, "plans", f"{name}.json")


def plan_instructions(name):
    """Every instruction of test plan `name`, over its devices and streams."""
    with open(plan_path(name), encoding="utf-8") as f:
        plan = json.load(f)
    return [i for d in plan["devices"] for s in d["streams"] for i in s["instructions"]]


def corrupted(name, directory, edit, suffix):
    """Plan `name` with every instruction replaced by `edit(instruction)` (None drops it), written
    to `directory`; returns its path."""
    with open(plan_path(name), encoding="utf-8") as f:
        plan = json.load(f)
    for dev in plan["devices"]:
        for stream in dev["streams"]:
            stream["instructions"] = [x for x in (edit(i) for i in stream["instructions"]) if x is not None]
    path = os.path.join(directory, f"{name}-{suffix}.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(plan, f)
    return path
