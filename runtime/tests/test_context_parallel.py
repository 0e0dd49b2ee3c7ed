"""Context parallelism (shard_sequence, all_gather form) trains exactly like one device in float64:
each member holds two of the 2·cp load-balanced chunks of every sequence, blocks attend their rows'
queries over the sequence's rows gathered from every member, and the rows' gradients are
reduce-scattered back (context_parallel.py says what the runtime's stand-in attention is). On a
dp2 × cp2 mesh (the gradient reduce over dp × cp) and on PP2 × CP2 (sends of 1/cp of the rows, the
gradient all-reduce over the cp members alone). A plan with the K/V gathers' member order reversed
trains wrongly and the verdict says so; one whose forward K/V gather is dropped stops naming it."""
import pytest

from plan_edits import corrupted, plan_path
from reference_match import assert_equal_to_one_device
from stagecraft_runtime.launch import launch

PLANS = ["mesh-dp2-cp2", "pp2-cp2"]
# Each member's two chunks of 2·cp: rows a multiple of 4.
OPTS = {"steps": 3, "dtype": "float64", "timeout": 30, "rows": 4}


def reversed_gathers(ins):
    if ins["id"].startswith("ALL_GATHER.cp."):
        return dict(ins, devices=list(reversed(ins["devices"])))
    return ins


def dropped_gather(ins):
    if ins["id"] == "ALL_GATHER.cp.F.b1.mb0":
        return None
    return dict(ins, waits=[w for w in ins.get("waits", []) if w != "ALL_GATHER.cp.F.b1.mb0"])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("cp"))
    paths = [plan_path(n) for n in PLANS] + [corrupted("mesh-dp2-cp2", d, reversed_gathers, "reversed")]
    return dict(zip(PLANS + ["reversed"], launch(paths, OPTS)))


@pytest.mark.parametrize("name", PLANS)
def test_context_parallel_plan_matches_the_single_device_reference(runs, name):
    assert_equal_to_one_device(runs[name])


def test_kv_gathered_in_the_wrong_member_order_fails_the_verdict(runs):
    r = runs["reversed"]
    assert not r["equal"], r
    assert r["maxRelDiff"] > 1e-6


def test_a_forward_whose_kv_gather_is_dropped_stops_naming_it(tmp_path):
    path = corrupted("pp2-cp2", str(tmp_path), dropped_gather, "dropped")
    with pytest.raises(Exception, match=r"block 1 microbatch 0: its forward needs the sequence's K/V"):
        launch([path], OPTS)
