"""shard_tensor's `comm_overlap`: sequence parallelism's reduce-scatters and all-gathers each cut in
two collectives that carry chunks of the tensor's rows (`chunks`), the reduce-scatter's hidden
part beside the compute making the tensor, the consumer starting after the all-gather's first
chunk. These plans train exactly like one device in float64: on TP2, PP2 × TP2 and DP2 × TP2, each
also with the tensor-parallel blocks recomputed. A plan that drops a chunk is refused before
launch; one member gathering its chunks in swapped order trains wrongly and the verdict says so."""
import json

import pytest

from plan_edits import plan_instructions, plan_path
from reference_match import assert_equal_to_one_device
from stagecraft_runtime.chunked_collectives import ChunkedCollectives
from stagecraft_runtime.instructions import Compute
from stagecraft_runtime.launch import launch
from stagecraft_runtime.plan import PlanError, check
from stagecraft_runtime.scheduler import RunError

PLANS = ["tp2-sp-overlap", "pp2-tp2-sp-overlap", "pp2-tp2-sp-recompute-overlap", "mesh-dp2-tp2-sp-overlap",
         "mesh-dp2-tp2-sp-recompute-overlap"]
OPTS = {"steps": 3, "dtype": "float64", "timeout": 30}


def swapped_on_one_member(plan_file, directory):
    """Device 0 gathers block 0's output of microbatch 1 rest-first: it places the other members'
    second chunk where their first goes, and the first where the second goes."""
    with open(plan_file, encoding="utf-8") as f:
        plan = json.load(f)
    dev = next(d for d in plan["devices"] if d["device"] == 0)
    gathers = [i for s in dev["streams"] for i in s["instructions"] if i["op"] == "ALL_GATHER"
               and i.get("chunks") and i["tensor"] == {"block": 0, "pass": "F", "microbatch": 1}]
    assert len(gathers) == 2
    gathers[0]["chunks"], gathers[1]["chunks"] = gathers[1]["chunks"], gathers[0]["chunks"]
    path = f"{directory}/tp2-sp-overlap-swapped.json"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(plan, f)
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("overlap"))
    wrong = {"swapped": swapped_on_one_member(plan_path("tp2-sp-overlap"), d)}
    paths = [plan_path(n) for n in PLANS] + list(wrong.values())
    return dict(zip(PLANS + list(wrong), launch(paths, OPTS)))


@pytest.mark.parametrize("name", PLANS)
def test_comm_overlap_plan_matches_the_single_device_reference(runs, name):
    assert_equal_to_one_device(runs[name])


@pytest.mark.parametrize("name", PLANS)
def test_every_chunked_collective_names_its_tensor_and_chunks(name):
    """The runs above are not vacuous: every tensor-parallel reduce-scatter and all-gather of the
    forward and backward comes in two chunked parts (a recompute's repeated ones are whole)."""
    ins = [i for i in plan_instructions(name) if i["op"] in ("REDUCE_SCATTER", "ALL_GATHER") and "params" not in i]
    chunked = [i for i in ins if "chunks" in i]
    assert all("tensor" in i for i in ins)
    assert {(i["op"], tuple(i["chunks"].values())) for i in chunked} == {
        ("REDUCE_SCATTER", (0, 3, 4)), ("REDUCE_SCATTER", (3, 4, 4)),
        ("ALL_GATHER", (0, 1, 2)), ("ALL_GATHER", (1, 2, 2))}
    whole = {i["id"].split(".")[2] for i in ins if "chunks" not in i}
    assert whole <= {"RECOMPUTE", "RECV"}, whole


def test_one_member_gathering_its_chunks_swapped_fails_the_verdict(runs):
    r = runs["swapped"]
    assert not r["equal"], r
    assert r["maxRelDiff"] > 1e-6


def without(plan, drop):
    for dev in plan["devices"]:
        for s in dev["streams"]:
            s["instructions"] = [dict(i, waits=[w for w in i.get("waits", []) if w != drop])
                                 for i in s["instructions"] if i["id"] != drop]
    return plan


@pytest.mark.parametrize("drop, message", [
    ("REDUCE_SCATTER.tp.F.b0.mb1", r"REDUCE_SCATTERs of block 0's output \(microbatch 1\) carry chunks \[3\] of 4 in none"),
    ("ALL_GATHER.tp-overlap.B.b1.mb0", r"ALL_GATHERs of block 1's input gradient \(microbatch 0\) carry chunks \[1\] of 2 in none"),
])
def test_a_dropped_chunk_is_refused_before_launch(drop, message):
    with open(plan_path("tp2-sp-overlap"), encoding="utf-8") as f:
        plan = without(json.load(f), drop)
    with pytest.raises(PlanError, match=r"devices\[0\]: the " + message):
        check(plan)


def test_a_chunk_carried_twice_or_out_of_range_is_refused():
    with open(plan_path("tp2-sp-overlap"), encoding="utf-8") as f:
        plan = json.load(f)
    first = next(i for i in plan["devices"][1]["streams"][0]["instructions"] if i["id"] == "ALL_GATHER.tp.F.b0.mb0")
    first["chunks"] = {"from": 0, "to": 2, "of": 2}
    with pytest.raises(PlanError, match=r"devices\[1\]: the ALL_GATHERs of block 0's output \(microbatch 0\) carry chunks \[1\] of 2 more than once"):
        check(plan)
    first["chunks"] = {"from": 1, "to": 1, "of": 2}
    with pytest.raises(PlanError, match=r"devices\[1\]\.streams\[0\]\.instructions\[\d+\]\.chunks: expected integers 0 ≤ from < to ≤ of"):
        check(plan)


class _Program:
    def instructions(self):
        return iter(())


class _Setup:
    blocks = [{"inputs": []}, {"inputs": [0]}]


def test_compute_waiting_for_chunks_is_never_read_before_it_runs():
    """F of block 1 reads block 0's output while its ALL_GATHER still has chunks to bring: it waits,
    and whatever reads what it makes before then (a SEND, a gradient collective, UPD, the step's
    end) is refused naming both, rather than reading nothing or a partial sum."""
    chunked = ChunkedCollectives(_Program(), _Setup(), slices=None, activations=None)
    chunked.gathering[(0, 0, True)] = [None, {0}]
    ran = []
    f = Compute("F.b1.mb0", "F", 1, 0, ())
    assert chunked.defer(f, ran.append)
    assert chunked.defer(Compute("F.b1.mb1", "F", 1, 1, ()), ran.append) is False
    with pytest.raises(RunError, match=r"SEND.F.b1.mb0 reads what block 1 microbatch 0's compute makes, which still "
                                       r"waits for chunks of block 0's output \(microbatch 0\)"):
        chunked.check_made("SEND.F.b1.mb0", [(1, 0)])
    with pytest.raises(RunError, match=r"UPD: F.b1.mb0 still waits for chunks of block 0 microbatch 0's output"):
        chunked.check_none_waiting("UPD")
    assert ran == []
