"""The verdict sees wrong plans: each corruption below of a plan that trains correctly is either
refused before any process starts (`stagecraft validate`, the check `stagecraft run` makes first)
or runs and fails the comparison, naming the tensors that differ. Several of them changed the
parameters by less than 1e-7 before the check compared gradients and every holder's own copy
(a doubled gradient barely moves Adam's update)."""
import copy
import json
import os
import subprocess

import pytest

from stagecraft_runtime.launch import launch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def plan(name):
    with open(os.path.join(HERE, "plans", f"{name}.json"), encoding="utf-8") as f:
        return json.load(f)


def streams(p, device):
    return next(d for d in p["devices"] if d["device"] == device)["streams"]


def stream(p, device, name):
    return next(s for s in streams(p, device) if s["stream"] == name)["instructions"]


def delete(p, devices, ident):
    """Deletes instruction `ident` from `devices`, and the waits on it."""
    for d in devices:
        for s in streams(p, d):
            s["instructions"] = [i for i in s["instructions"] if i["id"] != ident]
            for i in s["instructions"]:
                i["waits"] = [w for w in i["waits"] if w != ident]
    return p


def gradient_all_reduce_duplicated():
    p = plan("pp2-dp2")
    for d in (0, 2):
        dp = stream(p, d, "dp")
        twin = copy.deepcopy(dp[0])
        twin["id"] = twin["collective"] = dp[0]["id"] + ".again"
        twin["waits"] = [dp[0]["id"]]
        dp.insert(1, twin)
        upd = next(i for i in stream(p, d, "compute") if i["op"] == "UPD")
        upd["waits"].append(twin["id"])
    return p


def replica_upd_deleted():
    return delete(plan("pp2-dp2"), [2], "UPD.d0")


def zero1_post_step_all_gather_deleted():
    return delete(plan("pp2-dp2-zero1"), [0, 2], "ALL_GATHER.params.d0.k0")


def loss_scale_doubled():
    p = plan("pp2-dp2")
    p["batch"]["lossScale"] *= 2
    return p


def replicas_changed():
    p = plan("pp2-dp2")
    p["batch"]["replicas"] = 1
    return p


def gradient_collective_dropped():
    return delete(plan("pp2-dp2"), [0, 2], "ALL_REDUCE.grads.d0.k0")


def microbatches_swapped():
    """Device 0 sends microbatch 1's activations as microbatch 0's and the reverse (each SEND
    waiting for both forwards, so both exist when it is issued)."""
    p = plan("1f1b-p4-m8")
    sends = [i for i in stream(p, 0, "p2p") if i["op"] == "SEND"]
    a, b = sends[0], sends[1]
    a["tensor"]["microbatch"], b["tensor"]["microbatch"] = b["tensor"]["microbatch"], a["tensor"]["microbatch"]
    a["waits"] = b["waits"] = a["waits"] + b["waits"]
    return p


def backward_half_deleted():
    p = plan("zb-h1-p4-m8")
    bw = next(i for s in streams(p, 3) for i in s["instructions"] if i["op"] == "BW")
    return delete(p, [3], bw["id"])


def one_member_of_a_collective_dropped():
    return delete(plan("pp2-dp2"), [2], "ALL_REDUCE.grads.d0.k0")


def dualpipe_copies_summed_over_the_replicas_too():
    """DualPipe on dp2 groups with the copies' all-reduce over all 4 devices, as the compiler once
    emitted it: each gradient then counts every replica's copies on top of the replicas' own sum."""
    p = plan("dualpipe-p2-dp2-zero1")
    for d in range(4):
        for i in stream(p, d, "compute"):
            if i["id"].startswith("ALL_REDUCE.copies"):
                i["devices"], i["collective"] = [0, 1, 2, 3], i["id"]
    return p


# Corruption -> what stops it: "refused" before launch, or "verdict" after running.
CORRUPTIONS = {
    gradient_all_reduce_duplicated: "verdict",
    replica_upd_deleted: "verdict",
    zero1_post_step_all_gather_deleted: "verdict",
    loss_scale_doubled: "verdict",
    replicas_changed: "verdict",
    gradient_collective_dropped: "verdict",
    microbatches_swapped: "verdict",
    backward_half_deleted: "verdict",
    one_member_of_a_collective_dropped: "refused",
    dualpipe_copies_summed_over_the_replicas_too: "verdict",
}
NAMES = {f: f.__name__.replace("_", " ") for f in CORRUPTIONS}


def write(p, directory, name):
    path = os.path.join(directory, name.replace(" ", "-") + ".json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(p, f)
    return path


# Compiled from valid designs, and wrong until the copies' all-reduce paired the members of each
# data replica (issue 28): DualPipe on data-parallel groups, ZeRO-1 and plain. Beside the
# corruptions, in the same launch, they must pass the verdict the corruptions fail.
ONCE_WRONG = ["dualpipe-p2-dp2-zero1", "dualpipe-p2-dp2"]


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    directory = str(tmp_path_factory.mktemp("corrupted"))
    ran = [f for f, stop in CORRUPTIONS.items() if stop == "verdict"]
    paths = [write(f(), directory, NAMES[f]) for f in ran] + [os.path.join(HERE, "plans", f"{n}.json") for n in ONCE_WRONG]
    return dict(zip(ran + ONCE_WRONG, launch(paths, {"steps": 1, "dtype": "float64", "timeout": 30})))


@pytest.mark.parametrize("corruption", [f for f, s in CORRUPTIONS.items() if s == "verdict"], ids=NAMES.get)
def test_a_corrupted_plan_runs_and_fails_the_verdict_naming_its_worst_tensors(verdicts, corruption):
    r = verdicts[corruption]
    assert not r["equal"], r
    assert r["worst"] and all({"device", "tensor", "step"} <= set(w) for w in r["worst"])
    first = r["worst"][0]
    assert first.get("problem") or first["difference"] > 1e3 * r["tolerance"], first


@pytest.mark.parametrize("corruption", [f for f, s in CORRUPTIONS.items() if s == "refused"], ids=NAMES.get)
def test_a_corrupted_plan_is_refused_before_launch(tmp_path, corruption):
    path = write(corruption(), str(tmp_path), NAMES[corruption])
    r = subprocess.run(["npx", "stagecraft", "validate", path], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.startswith("error"), r


def test_the_uncorrupted_plans_pass_the_verdict_in_the_same_launch_settings(tmp_path):
    paths = [os.path.join(HERE, "plans", f"{n}.json") for n in ("pp2-dp2", "pp2-dp2-zero1", "1f1b-p4-m8", "zb-h1-p4-m8")]
    for r in launch(paths, {"steps": 1, "dtype": "float64", "timeout": 30}):
        assert r["equal"] and r["maxRelDiff"] <= 1e-12, r


@pytest.mark.parametrize("name", ONCE_WRONG)
def test_dualpipe_on_data_parallel_groups_trains_like_one_device(verdicts, name):
    r = verdicts[name]
    assert r["equal"] and r["maxRelDiff"] <= 1e-12, r["worst"]
