"""Mixture-of-experts blocks: a router (a block whose output an experts block reads) that also
picks each token's top-k experts, and an experts block whose experts are split over the EP group.
Dispatch and combine are real all-to-alls (executor.py); the top-k has a fixed tie-break (stable
sort: the lower expert index wins) and no capacity drop or auxiliary loss, so a token's result is
the same on one device and on many."""
import torch

from .model import Block


class Router(Block):
    def __init__(self, width, seed, index, dtype, experts):
        super().__init__(width, seed, index, dtype)
        g = torch.Generator().manual_seed(seed * 7919 + index + 500_009)
        self.gate = torch.nn.Parameter(torch.randn(width, experts, generator=g, dtype=dtype) / width**0.5)

    def route(self, h, k):
        """Each token's k experts (by descending logit, ties to the lower index) and their weights."""
        values, order = torch.sort(h @ self.gate, dim=1, descending=True, stable=True)
        return order[:, :k], torch.softmax(values[:, :k], dim=1)


class Experts(torch.nn.Module):
    """The experts `owned` (global indices) of an experts block; expert e is the same everywhere."""

    def __init__(self, width, seed, index, dtype, owned):
        super().__init__()
        self.owned = list(owned)
        self.experts = torch.nn.ModuleDict(
            {f"e{e}": Block(width, seed, 1_000_003 * (index + 1) + e, dtype) for e in self.owned}
        )

    def rows(self, x, gates, expert_ids):
        """Each row's gate × its expert's output (rows of experts held elsewhere stay zero)."""
        y = torch.zeros_like(x)
        for e in self.owned:
            mask = (expert_ids == e).unsqueeze(-1)
            y = y + torch.where(mask, gates.unsqueeze(-1) * self.experts[f"e{e}"](x), torch.zeros_like(x))
        return y

    def tokens(self, h, idx, weights):
        """The whole layer on one device: Σ over each token's k experts of weight × expert(h)."""
        y = torch.zeros_like(h)
        for slot in range(idx.shape[1]):
            y = y + self.rows(h, weights[:, slot], idx[:, slot])
        return y
