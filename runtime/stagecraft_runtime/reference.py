"""The single-device run a plan must match, written apart from the workers' code so that a bug
shared with them cannot hide: plain modules built from the seed (the model's definition), torch's
own autograd over every replica's every microbatch, and torch.optim.Adam. Its batch (microbatches,
replicas, loss scale) is given by the caller (verdict.py: from the design, or read off the plan's
instructions), never the header of the plan under test. It keeps, per step, the gradients the
optimizer steps, and the parameters after the last step."""
import torch

from .model import ADAM


def top_k(logits, k):
    """Each token's k experts by descending logit, ties to the lower index, and their weights."""
    values, order = torch.sort(logits, dim=1, descending=True, stable=True)
    return order[:, :k], torch.softmax(values[:, :k], dim=1)


def mixture(layer, h, idx, weights):
    """Σ over each token's k experts of weight × expert(token), one expert's tokens at a time."""
    y = torch.zeros_like(h)
    for slot in range(idx.shape[1]):
        for e in idx[:, slot].unique().tolist():
            rows = (idx[:, slot] == e).nonzero().squeeze(1)
            y = y.index_add(0, rows, weights[rows, slot].unsqueeze(1) * layer.experts[f"e{e}"](h[rows]))
    return y


def forward(setup, blocks, x):
    outs, routes = {}, {}
    for b in setup.order():
        ins = setup.blocks[b]["inputs"]
        if setup.experts_of(b):
            (router,) = ins
            outs[b] = mixture(blocks[b], outs[router], *routes[router])
            continue
        outs[b] = blocks[b](x if not ins else sum(outs[a] for a in ins))
        routed = setup.router_of(b)
        if routed is not None:
            routes[b] = top_k(outs[b] @ blocks[b].gate, setup.blocks[routed].get("topK") or 1)
    return outs[setup.loss_block]


def run_reference(setup, steps):
    """(losses, gradients per step, parameters after the last step); tensors keyed (block, name)."""
    blocks = {b: setup.block(b) for b in range(len(setup.blocks))}
    named = {(b, n): p for b, m in blocks.items() for n, p in m.named_parameters()}
    adam = torch.optim.Adam(list(named.values()), lr=ADAM["lr"], betas=ADAM["betas"], eps=ADAM["eps"], foreach=False)
    losses, gradients = [], []
    for step in range(steps):
        total = 0.0
        for replica in range(setup.replicas):
            for mb in range(setup.microbatches):
                x, y = setup.data(step, replica, mb)
                loss = ((forward(setup, blocks, x) - y) ** 2).mean() * setup.loss_scale
                loss.backward()
                total += loss.item()
        # An expert no token chose has no gradient; it still takes its step (zero gradient: its
        # moments decay and its step count advances), as it does on a device that holds it.
        for p in named.values():
            if p.grad is None:
                p.grad = torch.zeros_like(p)
        gradients.append({k: p.grad.detach().clone() for k, p in named.items()})
        adam.step()
        adam.zero_grad(set_to_none=True)
        losses.append(total)
    return losses, gradients, {k: p.detach().clone() for k, p in named.items()}
