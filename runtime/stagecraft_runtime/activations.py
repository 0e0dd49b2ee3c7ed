"""The tensors of one device's step that flow between blocks: forward outputs, output and input
gradients, and each (block, microbatch)'s stash (its inputs, its differentiable result and the
saved activations OFFLOAD moves). Reset every step."""
import torch


class Box:
    """A saved activation, moved to host memory by OFFLOAD and back by RELOAD."""

    __slots__ = ("t", "device")

    def __init__(self, t):
        self.t = t
        self.device = t.device


def packer(boxes):
    """saved_tensors_hooks' pack: activations go into boxes OFFLOAD can move; parameters stay as
    they are (they are not the stash, and a ZeRO-3 parameter's storage is swapped in by its gather)."""

    def pack(t):
        if isinstance(t, torch.nn.Parameter):
            return t
        box = Box(t)
        boxes.append(box)
        return box

    return pack


def unpack(x):
    return x.t if isinstance(x, Box) else x


class Activations:
    def __init__(self, block_inputs, held):
        self.block_inputs = block_inputs  # block -> the blocks whose outputs it reads (model.blocks)
        self.held = held  # the blocks this device holds
        self.reset()

    def reset(self):
        self.stash = {}  # (block, mb) -> dict(inputs, out, boxes)
        self.outputs = {}  # (block, mb) -> forward output (detached) for local consumers and SENDs
        self.grad_out = {}  # (block, mb) -> gradient of the block's output
        self.grad_in = {}  # (block, mb) -> gradient of the block's input (for SENDs)
        self.given_grad = {}  # (block, mb) -> output gradient handed over by an all-to-all

    def add_grad_out(self, key, g):
        prev = self.grad_out.get(key)
        self.grad_out[key] = g if prev is None else prev + g

    def input_gradient(self, block, microbatch, g):
        """The gradient of block's input is the gradient of the outputs of its inputs held here."""
        for a in self.block_inputs[block]["inputs"]:
            if a in self.held:
                self.add_grad_out((a, microbatch), g)
