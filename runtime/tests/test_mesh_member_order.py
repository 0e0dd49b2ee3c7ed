"""A plan's member order is the contract: every mesh design of these tests, its devices relabelled
by a permutation (so sub-groups list their members in any order, `[[3, 2], [1, 0]]` among them),
compiled with the CLI, trains like one device. torch's new_group sorts its ranks, so without the
runtime following the plan's order, all-gathers, reduce-scatters and expert all-to-alls would
put chunks and experts on the wrong members.

The permutations are drawn from a seed (STAGECRAFT_PERMUTATION_SEED, else a fixed one, printed on
failure); the full reversal is always among them."""
import concurrent.futures
import json
import os
import random
import subprocess

import pytest

from stagecraft_runtime.collectives import MemberOrder
from stagecraft_runtime.launch import launch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MESH_DESIGNS = sorted(f[: -len(".json")] for f in os.listdir(os.path.join(HERE, "designs")) if f.startswith("mesh-"))
SEED = int(os.environ.get("STAGECRAFT_PERMUTATION_SEED", "28"))
DRAWN = 1  # random permutations per design besides the reversal


def permutations(name):
    rng = random.Random(f"{SEED}/{name}")
    out = [(3, 2, 1, 0)]
    while len(out) < 1 + DRAWN:
        p = list(range(4))
        rng.shuffle(p)
        if tuple(p) not in out and p != [0, 1, 2, 3]:
            out.append(tuple(p))
    return out


def relabel(value, perm):
    """Every device list in a mesh placement with device d renamed perm[d]."""
    if isinstance(value, list):
        return [relabel(v, perm) for v in value]
    return perm[value]


def permuted_design(name, perm, directory):
    with open(os.path.join(HERE, "designs", f"{name}.json"), encoding="utf-8") as f:
        design = json.load(f)
    for d in design["directives"]:
        if "mesh" in d:
            d["mesh"]["devices"] = relabel(d["mesh"]["devices"], perm)
    path = os.path.join(directory, f"{name}-{''.join(map(str, perm))}.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(design, f)
    return path


def compile_with_cli(design):
    plan = design[: -len(".json")] + ".plan.json"
    r = subprocess.run(["npx", "stagecraft", "compile", design, "-o", plan], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return plan


CASES = [(name, perm) for name in MESH_DESIGNS for perm in permutations(name)]


@pytest.fixture(scope="module")
def permuted_runs(tmp_path_factory):
    directory = str(tmp_path_factory.mktemp("permuted"))
    designs = [permuted_design(name, perm, directory) for name, perm in CASES]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        plans = list(pool.map(compile_with_cli, designs))
    return dict(zip(CASES, launch(plans, {"steps": 2, "dtype": "float64", "timeout": 30})))


def test_a_member_order_puts_group_rank_chunks_in_plan_order_and_back():
    import torch

    # Plan devices [3, 2, 0]: torch's group ranks them 2, 1, 0.
    order = MemberOrder([2, 1, 0])
    by_group_rank = torch.tensor([[0.0], [2.0], [3.0]])  # the chunks of devices 0, 2, 3
    assert order.to_plan(by_group_rank).flatten().tolist() == [3.0, 2.0, 0.0]
    assert torch.equal(order.to_group(order.to_plan(by_group_rank)), by_group_rank)
    assert MemberOrder([0, 1, 2]).identity and not order.identity


def test_the_permutations_move_sub_groups_out_of_ascending_order():
    assert any(perm == (3, 2, 1, 0) for _name, perm in CASES)
    assert {name for name, _perm in CASES} == {
        "mesh-cp4-ring", "mesh-dp2-cp2", "mesh-dp2-cp2-ring", "mesh-dp2-ep2", "mesh-dp2-tp2", "mesh-dp2-tp2-sp",
        "mesh-dp2-tp2-sp-overlap", "mesh-dp2-tp2-sp-recompute", "mesh-dp2-tp2-sp-recompute-overlap",
        "mesh-dp2-tp2-zero1", "mesh-pp2-dp2",
    }


@pytest.mark.parametrize("case", CASES, ids=[f"{n}-{''.join(map(str, p))}" for n, p in CASES])
def test_a_mesh_design_with_its_devices_permuted_trains_like_one_device(permuted_runs, case):
    r = permuted_runs[case]
    assert r["maxRelDiff"] <= 1e-10, (f"seed {SEED}", case, r)
