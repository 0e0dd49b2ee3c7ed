"""The profiling helper writes traces whose instruction ranges the trace import reads."""

import json

import torch

from stagecraft_runtime.profiling import instruction, measured_step, trace_path


def test_a_measured_step_writes_the_ranks_trace_with_one_range_per_instruction(tmp_path):
    x = torch.randn(16, 16)
    with measured_step(str(tmp_path), rank=3, cuda=False):
        for ins in ["F.b0.mb0", "(F.b1.mb0;B.b0.mb1)", "UPD.d3"]:
            with instruction(ins):
                x = torch.tanh(x @ x)
    path = trace_path(str(tmp_path), rank=3)
    assert path.endswith("trace_rank3.json")
    doc = json.load(open(path))
    events = doc if isinstance(doc, list) else doc["traceEvents"]
    names = [e["name"] for e in events if e.get("ph") == "X"]
    for ins in ["F.b0.mb0", "(F.b1.mb0;B.b0.mb1)", "UPD.d3"]:
        assert names.count(ins) == 1


def test_the_rank_defaults_to_zero_outside_torch_distributed(tmp_path):
    assert trace_path(str(tmp_path)).endswith("trace_rank0.json")
