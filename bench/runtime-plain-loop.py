"""The same compute as a plan's F and B instructions, in a plain loop on one process: every block's
forward on an input cut from the graph (as a device receives it), then every block's backward by
torch.autograd.grad, microbatch after microbatch, with no scheduler, no threads and no
communication. Prints the mean wall µs per instruction, the mean CPU µs per instruction
(`time.process_time`) and the instructions of one step (every block's F and B, every
microbatch); bench/runtime-overhead.ts divides the runtime's overhead per instruction by the first,
so a loaded machine slows both sides of the ratio, and takes the CPU a step's compute needs from
the other two, which the load moves far less.

    python3 bench/runtime-plain-loop.py <plan.json> <width> <dtype> <repeats>
"""
import json
import sys
import time

import torch

from stagecraft_runtime.model import Setup


def main(path, width, dtype, repeats):
    with open(path) as f:
        plan = json.load(f)
    torch.set_num_threads(1)  # as each worker runs (one process per device on shared cores)
    setup = Setup(plan, width=width, dtype=getattr(torch, dtype))
    order = setup.order()
    blocks = {b: setup.block(b) for b in order}
    instructions = 0
    start, cpu = time.perf_counter(), time.process_time()
    for step in range(repeats):
        for mb in range(setup.microbatches):
            x, y = setup.data(step, 0, mb)
            saved, h = [], x
            for b in order:
                inp = h.detach().requires_grad_()
                out = blocks[b](inp)
                saved.append((b, inp, out))
                h = out
                instructions += 1
            grad = None
            for b, inp, out in reversed(saved):
                target = setup.loss(out, y) if b == setup.loss_block else out
                params = list(blocks[b].parameters())
                grads = torch.autograd.grad(target, [inp, *params], grad_outputs=grad)
                grad = grads[0]
                instructions += 1
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"{elapsed / instructions * 1e6:.1f} {cpu / instructions * 1e6:.1f} {instructions // repeats}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
