"""Bitonic sort of each block's keys in shared memory.

Block b sorts keys[b*B : (b+1)*B] ascending (B = block_dim, a power of two
up to 1024); keys past the end are padded with INT32_MAX, which sorts last
and is never written back. In every step thread t compare-exchanges buf[t]
and its partner buf[t ^ j] (min first in ascending runs) only when t ^ j > t,
so the pairs of one step are disjoint; a barrier ends every step.
"""
import numpy as np

import verikern as vk

MAX_BLOCK = 1024
PAD = 2147483647


@vk.kernel
def bitonic_sort_blocks(keys: vk.array(dtype=vk.int32)):
    vk.requires(vk.block_dim() & (vk.block_dim() - 1) == 0)
    buf = vk.shared.array(shape=(MAX_BLOCK,), dtype=vk.int32)
    t = vk.thread_idx()
    i = vk.tid()
    v = PAD
    if i < keys.shape[0]:
        v = keys[i]
    buf[t] = v
    vk.sync_threads()
    k = 2
    while k <= vk.block_dim():
        j = k // 2
        while j > 0:
            p = t ^ j
            if p > t:
                a = buf[t]
                b = buf[p]
                lo = vk.min(a, b)
                hi = vk.max(a, b)
                if (t & k) == 0:
                    buf[t] = lo
                    buf[p] = hi
                else:
                    buf[t] = hi
                    buf[p] = lo
            vk.sync_threads()
            j //= 2
        k *= 2
    if i < keys.shape[0]:
        keys[i] = buf[t]


# ------------------------------------------------------------------ host code
def make_inputs(rng, n):
    # a small value range, so that there are many equal keys
    return {"keys": rng.integers(-1000, 1000, n).astype(np.int32)}


def reference(inputs, block_dim=256):
    keys = inputs["keys"]
    out = keys.copy()
    for start in range(0, len(keys), block_dim):
        out[start:start + block_dim] = np.sort(keys[start:start + block_dim])
    return {"keys": out}


def run(inputs, device="cpu", block_dim=256):
    keys = inputs["keys"].copy()
    dim = max(1, -(-len(keys) // block_dim)) * block_dim
    vk.launch(bitonic_sort_blocks, dim, inputs=[keys], block_dim=block_dim, device=device)
    return {"keys": keys}


if __name__ == "__main__":
    data = make_inputs(np.random.default_rng(0), 1000)
    got, want = run(data, block_dim=128), reference(data, block_dim=128)
    print("bitonic_sort mismatches:", int(np.sum(got["keys"] != want["keys"])))
