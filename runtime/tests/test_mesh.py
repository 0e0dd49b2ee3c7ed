"""Where a member of a mesh runs its collectives and which data it reads: a replica of a group
lowered once finds its own sub-group from its representative's, and members read different data
only along the axes their gradients are reduced over (counting each data replica's loss once)."""
import json
import os

import pytest

from stagecraft_runtime.mesh import SubGroups, data_slot, own_subgroup, replica_members, replica_program

HERE = os.path.dirname(os.path.abspath(__file__))


def plan(name):
    with open(os.path.join(HERE, "plans", f"{name}.json"), encoding="utf-8") as f:
        return json.load(f)


def test_a_replica_runs_the_representatives_collective_among_its_own_sub_group():
    # A 2 x 3 x 2 mesh over devices 10..21: member r is device 10 + r.
    group = list(range(10, 22))
    mesh = {"axes": ["dp", "pp", "tp"], "shape": [2, 3, 2]}
    # The representative's sub-group along tp, then along dp, then along dp and tp.
    assert own_subgroup([10, 11], group, mesh, 19) == [18, 19]
    assert own_subgroup([10, 16], group, mesh, 19) == [13, 19]
    assert own_subgroup([10, 11, 16, 17], group, mesh, 19) == [12, 13, 18, 19]
    # A collective over the whole group stays the whole group.
    assert own_subgroup(group, group, mesh, 19) == group


def test_tensor_parallel_members_of_one_data_replica_read_the_same_data_and_count_its_loss_once():
    p = plan("mesh-dp2-tp2")
    assert [data_slot(p, r) for r in range(4)] == [(0, True), (0, False), (1, True), (1, False)]


def test_members_that_differ_only_on_axes_no_gradient_is_reduced_over_read_the_same_data():
    # The data follows the gradient reductions' axes, not the tensor-parallel entries.
    p = plan("mesh-dp2-tp2")
    del p["tensorParallel"]
    p["meshes"][0]["axes"] = ["dp", "unused"]
    assert [data_slot(p, r) for r in range(4)] == [(0, True), (0, False), (1, True), (1, False)]


def test_every_member_of_an_expert_parallel_mesh_reads_its_own_data():
    p = plan("mesh-dp2-ep2")
    assert [data_slot(p, r) for r in range(4)] == [(0, True), (1, True), (2, True), (3, True)]


MESH_PLANS = ["mesh-dp2-tp2", "mesh-dp2-tp2-zero1", "mesh-pp2-dp2", "mesh-dp2-ep2"]
# DualPipe's copies reach across groups: a replica pairs with the member of its rank in the other
# group (on a mesh and on a flat group).
COPIES_PLANS = ["dualpipe-p2-dp2-zero1", "dualpipe-p2-dp2"]


def collectives(program):
    return [
        (m["id"], m["collective"], m["devices"])
        for s in program["streams"]
        for ins in s["instructions"]
        for m in ins.get("members", [ins])
        if "collective" in m
    ]


@pytest.mark.parametrize("name", MESH_PLANS + COPIES_PLANS)
def test_a_replica_of_a_group_lowered_once_runs_what_the_compiler_lists_for_it_when_lowering_every_device(name):
    p = plan(name)
    programs = {d["device"]: d for d in p["devices"]}
    for group in p["groups"]:
        for rank in group[1:]:
            assert collectives(programs[rank])
            assert collectives(replica_program(programs[group[0]], p, rank)) == collectives(programs[rank]), rank


def test_sub_groups_computed_once_per_group_are_those_each_replica_computes_alone():
    # A 2 x 3 x 2 mesh plus a 12-member flat group: collectives along each set of axes, the whole
    # group, and one reaching into the other group (DualPipe's copies, paired by index).
    group, flat = list(range(10, 22)), list(range(30, 42))
    mesh = {"axes": ["dp", "pp", "tp"], "shape": [2, 3, 2]}
    p = {"groups": [group, flat], "meshes": [mesh, None]}
    listed = [[10, 11], [10, 16], [10, 11, 16, 17], [10, 12, 14], group, [10, 30]]
    for g, m in ((group, mesh), (flat, None)):
        once = SubGroups(p, g, m)
        for devices in listed if m is not None else [[30, 31], [30, 10]]:
            for rank in g:
                assert once.members(devices, rank) == replica_members(devices, p, g, m, rank), (devices, rank)
