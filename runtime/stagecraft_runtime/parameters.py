"""The blocks' parameters and gradients a device holds, as the flat buckets collectives carry:
a bucket (tuple of blocks) concatenates its blocks' parameters in their declaration order, padded
at the end to a multiple of the members' count."""
import torch


class BlockParameters:
    def __init__(self, blocks, dtype, device, tp):
        self.blocks = blocks  # block -> module
        self.shapes = {b: [p.shape for p in mod.parameters()] for b, mod in blocks.items()}
        # Every Parameter once: they stay the same objects (ZeRO-3 swaps their storage), and
        # `held` runs before every backward, where walking the modules cost more than the sums.
        self.every = [p for mod in blocks.values() for p in mod.parameters()]
        self.dtype = dtype
        self.device = device
        self.tp = tp  # block -> (index, degree) of its tensor-parallel slice

    def flat(self, blocks, grads):
        ts = []
        for b in blocks:
            for p, shape in zip(self.blocks[b].parameters(), self.shapes[b]):
                if grads:
                    ts.append(p.grad if p.grad is not None else torch.zeros(shape, dtype=self.dtype, device=self.device))
                else:
                    ts.append(p.data)
        return torch.cat([t.reshape(-1) for t in ts])

    def padded_flat(self, blocks, grads, n):
        return torch.nn.functional.pad(self.flat(blocks, grads), (0, self.padding(blocks, n)))

    def unflat(self, blocks, flat, grads):
        k = 0
        for b in blocks:
            for p, shape in zip(self.blocks[b].parameters(), self.shapes[b]):
                n = shape.numel()
                part = flat[k : k + n].view(shape)
                if grads:
                    p.grad = part.clone() if p.grad is None else p.grad + part
                else:
                    p.data.copy_(part)
                k += n

    def clear_grads(self, blocks):
        for b in blocks:
            for p in self.blocks[b].parameters():
                p.grad = None

    def padding(self, blocks, n):
        total = sum(shape.numel() for b in blocks for shape in self.shapes[b])
        return (-total) % n

    def materialize(self, bucket, flat):
        """Makes the bucket's parameters views of `flat` (a gathered copy)."""
        k = 0
        for b in bucket:
            for p, shape in zip(self.blocks[b].parameters(), self.shapes[b]):
                n = shape.numel()
                p.data = flat[k : k + n].view(shape)
                k += n

    def release(self, bucket):
        for b in bucket:
            for p in self.blocks[b].parameters():
                p.data = torch.empty(0, dtype=self.dtype, device=self.device)

    def names(self, blocks):
        """(block, parameter name, tensor-parallel slice or None) of each parameter of `blocks`,
        in the order their flat buckets concatenate them."""
        return [(b, name, self.tp.get(b)) for b in blocks for name, _p in self.blocks[b].named_parameters()]

    def held(self):
        """(parameter, gradient) elements held by the modules."""
        params = grads = 0
        for p in self.every:
            params += p.numel()
            g = p.grad
            if g is not None:
                grads += g.numel()
        return params, grads
