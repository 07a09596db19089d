"""Hillis-Steele inclusive scan within each block, double-buffered in shared
memory. out[i] is the sum of x over i's block up to element i.

The network always runs LOG_MAX_BLOCK steps (enough for the largest block):
step s reads row s % 2 and writes row 1 - s % 2, adding the element `offset =
1 << s` places back when that is still inside the block, copying otherwise;
one barrier ends every step. With an even number of steps the result always
ends in row 0, and every index is bounded by the loop counter alone, which
keeps the proof free of loop invariants.

Any block_dim up to 1024; the launch must be a multiple of block_dim (`run`
pads it and the kernel treats missing elements as 0).
"""
import numpy as np

import verikern as vk

MAX_BLOCK = 1024
LOG_MAX_BLOCK = 10


@vk.kernel
def block_scan(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    buf = vk.shared.array(shape=(2, MAX_BLOCK), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    buf[0, t] = v
    vk.sync_threads()
    for step in range(LOG_MAX_BLOCK):
        src = step % 2
        dst = 1 - src
        offset = 1 << step
        acc = buf[src, t]
        if t >= offset:
            acc = acc + buf[src, t - offset]
        buf[dst, t] = acc
        vk.sync_threads()
    if i < x.shape[0]:
        out[i] = buf[0, t]


# ------------------------------------------------------------------ host code
def make_inputs(rng, n):
    return {"x": rng.uniform(0.0, 1.0, n).astype(np.float32)}


def reference(inputs, block_dim=256):
    x = inputs["x"].astype(np.float64)
    out = np.empty_like(x)
    for start in range(0, len(x), block_dim):
        out[start:start + block_dim] = np.cumsum(x[start:start + block_dim])
    return {"out": out}


def run(inputs, device="cpu", block_dim=256):
    x = inputs["x"].copy()
    out = np.zeros_like(x)
    dim = max(1, -(-len(x) // block_dim)) * block_dim
    vk.launch(block_scan, dim, inputs=[x, out], block_dim=block_dim, device=device)
    return {"out": out}


if __name__ == "__main__":
    data = make_inputs(np.random.default_rng(0), 1000)
    got, want = run(data, block_dim=64), reference(data, block_dim=64)
    print("scan max abs error:", float(np.max(np.abs(got["out"] - want["out"]))))
