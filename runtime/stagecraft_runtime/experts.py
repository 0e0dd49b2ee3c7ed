"""Expert parallelism on one device: which experts of each experts block it owns, and the
all-to-alls that move tokens to their experts and back. Dispatch runs after the router's F,
combine after the experts' F, and their gradients after the B of the block reading the experts
(combine's) and the experts' B (dispatch's). Every member sends every other a block of T·k rows,
the used ones first, so one fixed-size all_to_all_single carries it."""
import torch

from . import collectives
from .instructions import Collective
from .scheduler import RunError


class ExpertExchange:
    def __init__(self, setup, program, rank, held, activations):
        self.setup = setup
        self.activations = activations
        # The experts blocks this member owns a share of (an equal share per member of the
        # all-to-all group, in member order): block -> (index, degree).
        self.ep = {}
        for ins in program.instructions():
            if isinstance(ins, Collective) and ins.op == "ALL_TO_ALL":
                for c in held:
                    if setup.experts_of(c):
                        self.ep[c] = (ins.devices.index(rank), len(ins.devices))
        self.reset()

    def owned(self, block):
        """The global indices of the experts of `block` this member holds (None: not split)."""
        if block not in self.ep:
            return None
        r, n = self.ep[block]
        per = self.setup.experts_of(block) // n
        return range(r * per, (r + 1) * per)

    def reset(self):
        self.routes = {}  # (router, mb) -> (expert index, weight) per token and slot
        self.positions = {}  # (experts block, mb) -> per member, the (token, slot) of each row sent
        self.rows_in = {}  # (experts block, mb) -> rows received by dispatch
        self.rows_out = {}  # (experts block, mb) -> rows computed here, to combine
        self.row_grads = {}  # (experts block, mb) -> (row input gradients, gate gradients)

    def all_to_all(self, ins, group, order):
        setup, acts = self.setup, self.activations
        tensor = ins.tensor
        b, mb = tensor.block, tensor.microbatch
        n = len(ins.devices)
        w = setup.width
        if tensor.forward and setup.router_of(b) is not None:
            c = setup.router_of(b)
            idx, weights = self.routes[(b, mb)]
            h = acts.outputs[(b, mb)]
            per = setup.experts_of(c) // n
            slots = idx.numel()
            send = torch.zeros(n, slots, w + 2, dtype=setup.dtype, device=setup.device)
            send[:, :, w] = -1
            positions = [[] for _ in range(n)]
            for t in range(idx.shape[0]):
                for slot in range(idx.shape[1]):
                    e = int(idx[t, slot])
                    j = e // per
                    r = len(positions[j])
                    send[j, r, :w] = h[t]
                    send[j, r, w] = e
                    send[j, r, w + 1] = weights[t, slot].detach()
                    positions[j].append((t, slot))
            self.positions[(c, mb)] = positions
            return _exchange(send, group, order, lambda got: self.rows_in.__setitem__((c, mb), got))
        if tensor.forward and setup.experts_of(b):
            key = (b, mb)

            def combine(got):
                out = torch.zeros(setup.sample_rows(), w, dtype=setup.dtype, device=setup.device)
                for j, rows in enumerate(self.positions[key]):
                    for r, (t, _slot) in enumerate(rows):
                        out[t] += got[j, r]
                acts.outputs[key] = out

            return _exchange(self.rows_out.pop(key), group, order, combine)
        if not tensor.forward and setup.experts_of(b):
            key = (b, mb)
            dx, dg = self.row_grads.pop(key)
            (router,) = setup.blocks[b]["inputs"]

            def hand_back(got):
                idx, _weights = self.routes[(router, mb)]
                dh = torch.zeros(setup.sample_rows(), w, dtype=setup.dtype, device=setup.device)
                dw = torch.zeros(idx.shape, dtype=setup.dtype, device=setup.device)
                for j, rows in enumerate(self.positions[key]):
                    for r, (t, slot) in enumerate(rows):
                        dh[t] += got[j, r, :w]
                        dw[t, slot] = got[j, r, w]
                acts.given_grad[(router, mb)] = (dh, dw)

            return _exchange(torch.cat([dx, dg.unsqueeze(-1)], dim=-1), group, order, hand_back)
        experts = [a for a in setup.blocks[b]["inputs"] if setup.experts_of(a)]
        if not tensor.forward and experts:
            key = (experts[0], mb)
            grad = acts.grad_out.pop(key)
            positions = self.positions[key]
            slots = self.routes[(setup.blocks[key[0]]["inputs"][0], mb)][0].numel()
            send = torch.zeros(n, slots, w, dtype=setup.dtype, device=setup.device)
            for j, rows in enumerate(positions):
                for r, (t, _slot) in enumerate(rows):
                    send[j, r] = grad[t]
            return _exchange(send, group, order, lambda got: acts.given_grad.__setitem__(key, got))
        raise RunError(f"{ins.id}: an ALL_TO_ALL this runtime cannot place")


def _exchange(send, group, order, then):
    work, got = collectives.all_to_all(send, group, order)
    return work, lambda: then(got())
