"""Sequence parallelism (shard_tensor's `sequence_parallel`) and the scatter-gather sends of a
tensor-parallel stage train exactly like one device in float64: each tensor-parallel block's partial
output (forward) and partial input gradient (backward) is reduce-scattered over the rows, each
member keeping its chunk, and all-gathered whole before its consumer; recompute repeats both after
the recomputed forward. Between two tensor-parallel stages each member sends its own 1/n of the rows
(its reduce-scatter's chunk, or without sequence parallelism its share of the all-reduced tensor)
and the receiving stage all-gathers them. On TP2, on a dp2 × tp2 mesh (the gradient all-reduce over
dp), on PP2 × TP2, each with and without the tensor-parallel blocks recomputed. A plan whose
activation all-gathers list their members in reverse, or that drops one, trains wrongly and the
verdict says so."""
import json

import pytest
import torch

from plan_edits import corrupted, plan_instructions, plan_path
from reference_match import assert_equal_to_one_device
from stagecraft_runtime.launch import launch
from stagecraft_runtime.model import Setup
from stagecraft_runtime.plan import PlanError, check

PLANS = ["tp2-sp", "mesh-dp2-tp2-sp", "mesh-dp2-tp2-sp-recompute", "pp2-tp2-sp", "pp2-tp2-sp-recompute",
         "pp2-tp2-scatter"]
OPTS = {"steps": 3, "dtype": "float64", "timeout": 30}


def reversed_gathers(ins):
    if ins["op"] == "ALL_GATHER" and "tensor" in ins:
        return dict(ins, devices=list(reversed(ins["devices"])))
    return ins


DROPPED = "ALL_GATHER.tp.F.b0.mb1"


def dropped_gather(ins):
    """Without the all-gather, block 1 reads block 0's partial output of microbatch 1."""
    if ins["id"] == DROPPED:
        return None
    return dict(ins, waits=[w for w in ins.get("waits", []) if w != DROPPED])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("sp"))
    wrong = {
        "reversed": corrupted("mesh-dp2-tp2-sp", d, reversed_gathers, "reversed"),
        "dropped": corrupted("tp2-sp", d, dropped_gather, "dropped"),
    }
    paths = [plan_path(n) for n in PLANS] + list(wrong.values())
    return dict(zip(PLANS + list(wrong), launch(paths, OPTS)))


@pytest.mark.parametrize("name", PLANS)
def test_sequence_parallel_plan_matches_the_single_device_reference(runs, name):
    assert_equal_to_one_device(runs[name])


@pytest.mark.parametrize("name", PLANS)
def test_the_plans_carry_what_the_runs_test(name):
    """The runs above are not vacuous: activation reduce-scatters and all-gathers (or, without
    sequence parallelism, all-reduces), and between stages sends of half the rows."""
    ins = plan_instructions(name)
    activations = {i["op"] for i in ins if "tensor" in i and i["op"] not in ("SEND", "RECV")}
    assert activations == ({"ALL_REDUCE", "ALL_GATHER"} if name == "pp2-tp2-scatter" else {"REDUCE_SCATTER", "ALL_GATHER"})
    sends = [i for i in ins if i["op"] in ("SEND", "RECV")]
    assert all(i.get("scatter") == 2 for i in sends) and (len(sends) > 0) == name.startswith("pp2"), name


@pytest.mark.parametrize("name", ["reversed", "dropped"])
def test_a_wrong_activation_all_gather_fails_the_verdict(runs, name):
    r = runs[name]
    assert not r["equal"], r
    assert r["maxRelDiff"] > 1e-6


def test_an_activation_reduce_scatter_without_its_tensor_is_refused_naming_its_path():
    with open(plan_path("tp2-sp"), encoding="utf-8") as f:
        plan = json.load(f)
    ins = plan["devices"][1]["streams"][0]["instructions"]
    k = next(k for k, i in enumerate(ins) if i["op"] == "REDUCE_SCATTER")
    del ins[k]["tensor"]
    with pytest.raises(PlanError, match=rf"devices\[1\]\.streams\[0\]\.instructions\[{k}\] \(REDUCE_SCATTER\.tp\..*neither `params` nor `tensor`"):
        check(plan)


def chunks_written(name, device):
    """The (block, microbatch, pass) chunks a device's reduce-scatters and scattered RECVs write in
    a step: what it would hold at the step's end if none were freed."""
    with open(plan_path(name), encoding="utf-8") as f:
        plan = json.load(f)
    dev = next(d for d in plan["devices"] if d["device"] == device)
    ins = [i for s in dev["streams"] for i in s["instructions"]]
    return {(i["tensor"]["block"], i["tensor"]["microbatch"], i["tensor"]["pass"]) for i in ins
            if "tensor" in i and (i["op"] == "REDUCE_SCATTER" or i["op"] == "RECV" and i.get("scatter"))}


@pytest.mark.parametrize("name", ["pp2-tp2-sp", "pp2-tp2-sp-recompute", "mesh-dp2-tp2-sp"])
def test_row_chunks_are_freed_after_their_last_reader(runs, name):
    """A member's chunk of the rows goes once its ALL_GATHER (or scattered SEND) has read it: at
    most a microbatch in flight's chunks are held at once, a fraction of every chunk of the step."""
    with open(plan_path(name), encoding="utf-8") as f:
        setup = Setup(json.load(f), dtype=torch.float64)
    chunk = setup.sample_rows() // 2 * setup.width * 8  # TP2: half the rows of float64s
    for m in runs[name]["memory"]:
        written = len(chunks_written(name, m["device"]))
        assert 0 < m["rowChunksPeak"] <= written * chunk // 2, (m, written)
        assert m["rowChunksPeak"] % chunk == 0
