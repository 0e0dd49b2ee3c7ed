"""Real blocks and data for a plan's model, identical in every process and in the reference: each
block is a small MLP (linear + tanh) whose weights come from the seed and its index alone, the batch
from the seed alone, so any device builds exactly the tensors the single-device run builds."""
import torch

from .chunked_collectives import row_multiple


class Block(torch.nn.Module):
    """Two linears with tanh between (hidden 2 × width). `shard=(r, n)`: the r-th of n
    Megatron-style slices (columns of the first linear, rows of the second; the output bias on
    r = 0 only), whose outputs sum to the whole block's."""

    def __init__(self, width, seed, index, dtype, shard=(0, 1)):
        super().__init__()
        g = torch.Generator().manual_seed(seed * 7919 + index)
        hidden = 2 * width
        w1 = torch.randn(width, hidden, generator=g, dtype=dtype) / width**0.5
        b1 = torch.randn(hidden, generator=g, dtype=dtype) * 0.1
        w2 = torch.randn(hidden, width, generator=g, dtype=dtype) / hidden**0.5
        b2 = torch.randn(width, generator=g, dtype=dtype) * 0.1
        r, n = shard
        if hidden % n:
            raise ValueError(f"block {index}: hidden width {hidden} does not split {n} ways")
        cols = slice(r * hidden // n, (r + 1) * hidden // n)
        self.weight1 = torch.nn.Parameter(w1[:, cols].clone())
        self.bias1 = torch.nn.Parameter(b1[cols].clone())
        self.weight2 = torch.nn.Parameter(w2[cols, :].clone())
        self.bias2 = torch.nn.Parameter(b2) if r == 0 else None

    def forward(self, x):
        y = torch.tanh(x @ self.weight1 + self.bias1) @ self.weight2
        return y + self.bias2 if self.bias2 is not None else y


class SequenceBlock(Block):
    """A Block plus causal attention over the rows of its microbatch (the stand-in of a layer whose
    sequence context parallelism splits): queries a projection of each row, keys and values the
    rows themselves. `keys` (the whole sequence's rows) and `positions` (the sequence positions of
    the rows of x) let a member attend its own rows over every member's."""

    def __init__(self, width, seed, index, dtype):
        super().__init__(width, seed, index, dtype)
        g = torch.Generator().manual_seed(seed * 7919 + index + 104729)
        self.query = torch.nn.Parameter(torch.randn(width, width, generator=g, dtype=dtype) / width)

    def forward(self, x, keys=None, positions=None):
        if keys is None:
            keys, positions = x, torch.arange(x.shape[0])
        scores = (x @ self.query) @ keys.T / x.shape[1] ** 0.5
        causal = positions.unsqueeze(1) >= torch.arange(keys.shape[0]).unsqueeze(0)
        weights = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=1)
        return super().forward(x) + weights @ keys


class Setup:
    """Model sizes and data of one run: `width` features, `rows` rows per sample."""

    def __init__(self, plan, width=16, rows=2, seed=0, dtype=torch.float32, device="cpu"):
        self.plan = plan
        self.device = torch.device(device)
        self.width = width
        self.rows = rows
        self.seed = seed
        self.dtype = dtype
        b = plan["batch"]
        self.microbatches = b["microbatches"]
        self.microbatch_size = b["microbatchSize"]
        self.replicas = b["replicas"]
        self.loss_scale = b["lossScale"]
        self.blocks = plan["model"]["blocks"]
        self.loss_block = plan["model"]["loss"]
        # Blocks whose rows attend each other (every device and the reference build them so).
        self.sequence_blocks = {b for r in plan.get("contextParallel", []) for b in r["blocks"]}
        # Context parallelism over n members splits each microbatch's rows into 2n equal chunks:
        # as few more rows as that takes (context_parallel.py).
        need = 2 * max([len(r["devices"]) for r in plan.get("contextParallel", [])] or [0])
        # Sequence parallelism's reduce-scatters split them into one chunk per tensor-parallel member.
        tensor_parallel = [len(r["devices"]) for r in plan.get("tensorParallel", [])]
        # comm_overlap's chunked collectives split each member's share of them again.
        tensor_parallel.append(row_multiple(plan))
        while any((self.microbatch_size * self.rows) % n for n in tensor_parallel + ([need] if need else [])):
            self.rows += 1

    def experts_of(self, b):
        return self.blocks[b].get("experts")

    def router_of(self, b):
        """The experts block that block b routes for, or None."""
        for c, spec in enumerate(self.blocks):
            if spec.get("experts") and b in spec["inputs"]:
                return c
        return None

    def block(self, index, shard=(0, 1), owned=None):
        from .moe import Experts, Router

        # Built on the CPU from the seed (the same numbers everywhere), then moved to the device.
        experts = self.experts_of(index)
        if experts:
            block = Experts(self.width, self.seed, index, self.dtype, range(experts) if owned is None else owned)
        elif self.router_of(index) is not None:
            block = Router(self.width, self.seed, index, self.dtype, self.experts_of(self.router_of(index)))
        elif index in self.sequence_blocks:
            if shard != (0, 1):
                raise ValueError(f"block {index}: context parallel and tensor parallel at once is not run here")
            block = SequenceBlock(self.width, self.seed, index, self.dtype)
        else:
            block = Block(self.width, self.seed, index, self.dtype, shard)
        return block.to(self.device)

    def sample_rows(self):
        return self.microbatch_size * self.rows

    def data(self, step, replica, microbatch):
        """Input and target of one microbatch of one replica at one step."""
        g = torch.Generator().manual_seed(((self.seed * 1009 + step) * 4099 + replica) * 65537 + microbatch)
        n = self.sample_rows()
        x = torch.randn(n, self.width, generator=g, dtype=self.dtype)
        y = torch.randn(n, self.width, generator=g, dtype=self.dtype)
        return x.to(self.device), y.to(self.device)

    def loss(self, out, target):
        return ((out - target) ** 2).mean() * self.loss_scale

    def order(self):
        """Blocks in an order where every block comes after its inputs."""
        seen, out = set(), []

        def visit(b):
            if b in seen:
                return
            seen.add(b)
            for a in self.blocks[b]["inputs"]:
                visit(a)
            out.append(b)

        for b in range(len(self.blocks)):
            visit(b)
        return out


# The optimizer of every run and of the reference (torch.optim.Adam's defaults, but lr 1e-2 so
# that a few steps move the parameters visibly).
ADAM = {"lr": 1e-2, "betas": (0.9, 0.999), "eps": 1e-8}


class Adam:
    """Adam applied elementwise, so a flat shard of parameters steps exactly as the whole tensor does."""

    def __init__(self, lr=ADAM["lr"], betas=ADAM["betas"], eps=ADAM["eps"]):
        self.lr, self.b1, self.b2, self.eps = lr, betas[0], betas[1], eps
        self.state = {}

    def step(self, key, param, grad):
        m, v, t = self.state.get(key, (torch.zeros_like(param), torch.zeros_like(param), 0))
        t += 1
        m.mul_(self.b1).add_(grad, alpha=1 - self.b1)
        v.mul_(self.b2).addcmul_(grad, grad, value=1 - self.b2)
        mhat = m / (1 - self.b1**t)
        vhat = v / (1 - self.b2**t)
        param.sub_(self.lr * mhat / (vhat.sqrt() + self.eps))
        self.state[key] = (m, v, t)

    def numel(self):
        """Elements of optimizer state held (both moments of every tensor stepped)."""
        return sum(m.numel() + v.numel() for m, v, _t in self.state.values())
