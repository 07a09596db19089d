"""Block sum reduction: each block loads its elements (zero-padded past the
end) into shared memory and halves the active range with `s //= 2`, with a
barrier after every step; thread 0 writes the block's partial sum.

Any power-of-two block_dim up to 1024 works (the shared buffer holds 1024).
The launch must be a multiple of block_dim (it uses barriers): `run` pads it.
"""
import numpy as np

import verikern as vk

MAX_BLOCK = 1024


@vk.kernel
def block_sum(x: vk.array(dtype=vk.float32), partial: vk.array(dtype=vk.float32)):
    vk.requires(vk.block_dim() & (vk.block_dim() - 1) == 0)
    buf = vk.shared.array(shape=(MAX_BLOCK,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    buf[t] = v
    vk.sync_threads()
    s = vk.block_dim() // 2
    while s > 0:
        if t < s:
            buf[t] = buf[t] + buf[t + s]
        vk.sync_threads()
        s //= 2
    b = vk.block_idx()
    if t == 0 and b < partial.shape[0]:
        partial[b] = buf[0]


# ------------------------------------------------------------------ host code
def num_blocks(n, block_dim):
    return max(1, -(-n // block_dim))


def make_inputs(rng, n):
    return {"x": rng.uniform(0.0, 1.0, n).astype(np.float32)}


def reference(inputs, block_dim=256):
    x = inputs["x"].astype(np.float64)
    nb = num_blocks(len(x), block_dim)
    padded = np.zeros(nb * block_dim)
    padded[:len(x)] = x
    return {"partial": padded.reshape(nb, block_dim).sum(axis=1)}


def run(inputs, device="cpu", block_dim=256):
    x = inputs["x"].copy()
    nb = num_blocks(len(x), block_dim)
    partial = np.zeros(nb, dtype=np.float32)
    vk.launch(block_sum, nb * block_dim, inputs=[x, partial], block_dim=block_dim, device=device)
    return {"partial": partial}


if __name__ == "__main__":
    data = make_inputs(np.random.default_rng(0), 1000)
    got, want = run(data, block_dim=128), reference(data, block_dim=128)
    err = np.max(np.abs(got["partial"] - want["partial"]))
    print("block_reduce: total", float(got["partial"].sum()), "max abs error:", float(err))
