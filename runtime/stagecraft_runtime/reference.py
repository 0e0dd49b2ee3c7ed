"""The single-device run a plan must match: the same blocks, data, loss scale and Adam, every
replica's every microbatch forward then backward in one process, one optimizer step per step."""
import torch

from .model import Adam


def run_reference(setup, steps):
    blocks = {b: setup.block(b) for b in range(len(setup.blocks))}
    order = setup.order()
    adam = Adam()
    losses = []
    for step in range(steps):
        total = 0.0
        for replica in range(setup.replicas):
            for mb in range(setup.microbatches):
                x, y = setup.data(step, replica, mb)
                outs, routes = {}, {}
                for b in order:
                    ins = setup.blocks[b]["inputs"]
                    inp = x if not ins else sum(outs[a] for a in ins)
                    if setup.experts_of(b):
                        (router,) = ins
                        outs[b] = blocks[b].tokens(outs[router], *routes[router])
                        continue
                    outs[b] = blocks[b](inp)
                    routed = setup.router_of(b)
                    if routed is not None:
                        routes[b] = blocks[b].route(outs[b], setup.blocks[routed].get("topK") or 1)
                loss = setup.loss(outs[setup.loss_block], y)
                loss.backward()
                total += loss.item()
        for b, mod in blocks.items():
            for name, p in mod.named_parameters():
                adam.step((b, name), p.data, p.grad)
                p.grad = None
        losses.append(total)
    return losses, {b: {n: p.detach().clone() for n, p in m.named_parameters()} for b, m in blocks.items()}
