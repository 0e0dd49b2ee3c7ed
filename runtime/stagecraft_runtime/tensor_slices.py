"""Tensor parallelism on one device: the Megatron-style slice (index, degree) it holds of each
block of a `tensorParallel` region, and the all-reduces that sum the members' partial outputs (F)
or input gradients (B, BI)."""
from . import collectives
from .mesh import region_devices


class TensorSlices:
    def __init__(self, plan, rank, activations):
        self.activations = activations
        self.slices = {}  # block -> (index, degree)
        for region in plan.get("tensorParallel", []):
            devices = region_devices(plan, region, rank)
            if devices is not None:
                for b in region["blocks"]:
                    self.slices[b] = (devices.index(rank), len(devices))

    def slice_of(self, block):
        return self.slices.get(block, (0, 1))

    def __contains__(self, block):
        return block in self.slices

    def all_reduce(self, ins, group):
        acts = self.activations
        tensor = ins.tensor
        key = tensor.key
        if tensor.forward:
            t = acts.outputs[key] = acts.outputs[key].contiguous()
            return collectives.all_reduce(t, group)[0], lambda: None
        t = acts.grad_in[key] = acts.grad_in[key].contiguous()
        return collectives.all_reduce(t, group)[0], lambda: acts.input_gradient(tensor.block, tensor.microbatch, t)
