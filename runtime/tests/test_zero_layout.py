"""Which parameters a device holds as shards is read from the plan's instructions alone: a bucket
whose every use is preceded by its ALL_GATHER is held as a shard, anything else stays whole."""
import json
import os

from stagecraft_runtime.zero import sharded_buckets

HERE = os.path.dirname(os.path.abspath(__file__))


def program(name, device):
    with open(os.path.join(HERE, "plans", f"{name}.json"), encoding="utf-8") as f:
        return json.load(f)["devices"][device]


def test_a_zero3_plan_holds_each_block_as_a_shard_gathered_before_each_f_and_b():
    found = sharded_buckets(program("pp2-dp2-zero3", 0))
    assert list(found) == [(0,)]
    uses = sorted(u for us in found[(0,)].values() for u in us)
    assert uses == sorted([f"F.b0.mb{m}" for m in range(4)] + [f"B.b0.mb{m}" for m in range(4)])


def test_a_block_used_without_a_gather_before_it_stays_whole():
    p = program("pp2-dp2-zero3", 0)
    for s in p["streams"]:
        for ins in s["instructions"]:
            if ins["id"] == "B.b0.mb2":
                ins["waits"] = [w for w in ins["waits"] if not w.startswith("ALL_GATHER")]
    assert sharded_buckets(p) == {}


def test_zero1_and_zero2_plans_keep_their_parameters_whole():
    assert sharded_buckets(program("pp2-dp2-zero1", 0)) == {}
    assert sharded_buckets(program("pp2-dp2-zero2", 0)) == {}


def test_tensor_or_expert_parallel_blocks_are_never_held_as_shards():
    assert sharded_buckets(program("pp2-dp2-zero3", 0), exclude={0}) == {}
