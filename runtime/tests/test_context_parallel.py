"""Context parallelism (shard_sequence) trains exactly like one device in float64, in both forms:
each member holds two of the 2·cp load-balanced chunks of every sequence and blocks attend their
rows' queries over every member's rows (context_parallel.py says what the runtime's stand-in
attention is). all_gather form: the rows gathered from every member, their gradients
reduce-scattered back. ring form: the chunks passed around the ring in cp − 1 point-to-point
steps, each step's attention block merged by log-sum-exp, the gradients returned around the ring.
On a dp2 × cp2 mesh (the gradient reduce over dp × cp), on PP2 × CP2 (sends of 1/cp of the rows,
the gradient all-reduce over the cp members alone) and, for the ring, on cp4 (three steps). A plan
with the K/V gathers' member order reversed, a ring step skipped, the gradients sent around another
ring than the K/V, chunks attended at another step's positions or merged without log-sum-exp
trains wrongly and the verdict says so; a forward whose K/V gather is dropped stops naming it."""
import pytest

from plan_edits import corrupted, plan_path
from reference_match import assert_equal_to_one_device
from stagecraft_runtime.launch import launch

PLANS = ["mesh-dp2-cp2", "pp2-cp2", "mesh-dp2-cp2-ring", "pp2-cp2-ring", "mesh-cp4-ring"]
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


def skipped_step(ins):
    if ins.get("ringSteps"):
        return dict(ins, ringSteps=ins["ringSteps"] - 1)
    return ins


def gradients_around_another_ring(ins):
    if ins.get("ringSteps") and ins["op"] == "REDUCE_SCATTER":
        d = ins["devices"]
        return dict(ins, devices=[d[0], d[2], d[1], d[3]])
    return ins


CORRUPTIONS = {"skipped": skipped_step, "another-ring": gradients_around_another_ring}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("cp"))
    corrupt = {"reversed": corrupted("mesh-dp2-cp2", d, reversed_gathers, "reversed")}
    corrupt.update({k: corrupted("mesh-cp4-ring", d, edit, k) for k, edit in CORRUPTIONS.items()})
    paths = [plan_path(n) for n in PLANS] + list(corrupt.values())
    return dict(zip(PLANS + list(corrupt), launch(paths, OPTS)))


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


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_a_ring_step_skipped_or_gradients_sent_around_another_ring_fails_the_verdict(runs, corruption):
    r = runs[corruption]
    assert not r["equal"], r
    assert r["maxRelDiff"] > 1e-6


@pytest.mark.parametrize("fault", ["reorder", "merge"])
def test_ring_chunks_attended_at_the_wrong_positions_or_merged_without_lse_fail_the_verdict(fault, monkeypatch):
    monkeypatch.setenv("STAGECRAFT_RUNTIME_RING_FAULT", fault)
    (r,) = launch([plan_path("mesh-cp4-ring")], OPTS)
    assert not r["equal"], r
    assert r["maxRelDiff"] > 1e-6


def test_blockwise_attention_merged_by_log_sum_exp_is_attention_over_the_whole_sequence():
    import torch

    from stagecraft_runtime.model import SequenceBlock
    from stagecraft_runtime.ring_attention import ring_forward

    block = SequenceBlock(8, 0, 1, torch.float64)
    x = torch.randn(8, 8, dtype=torch.float64, requires_grad=True)
    whole = block(x)
    # Member 0 of 2 holds rows 0–1 and 6–7; the chunk of member 1 (rows 2–5) lies wholly after
    # rows 0–1, which see none of it: their weight in the merge is 0, and no NaN in the gradient.
    mine, other = torch.tensor([0, 1, 6, 7]), torch.tensor([2, 3, 4, 5])
    out = ring_forward(block, x[mine], [(x[mine], mine), (x[other], other)], mine)
    assert torch.allclose(out, whole[mine], rtol=0, atol=1e-14)
    (g,) = torch.autograd.grad(out.sum(), x)
    assert torch.isfinite(g).all()
    averaged = ring_forward(block, x[mine], [(x[mine], mine), (x[other], other)], mine, fault="merge")
    assert not torch.allclose(averaged, whole[mine], rtol=0, atol=1e-6)
