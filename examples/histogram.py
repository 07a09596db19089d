"""Histogram of integer keys, two ways:

- `histogram_global`: every thread adds 1 to hist[key] with a global atomic;
- `histogram_shared`: each block counts into a privatised shared histogram
  (zeroed, barrier, shared atomics, barrier) and then adds its bins into the
  global histogram with one atomic per bin.

The launch contract all_in_range(keys, 0, NBINS) keeps every bin in bounds.
"""
import numpy as np

import verikern as vk

NBINS = 32


@vk.kernel
def histogram_global(keys: vk.array(dtype=vk.int32), hist: vk.array(dtype=vk.int32)):
    vk.requires(vk.all_in_range(keys, 0, hist.shape[0]))
    i = vk.tid()
    if i < keys.shape[0]:
        vk.atomic_add(hist, keys[i], 1)


@vk.kernel
def histogram_shared(keys: vk.array(dtype=vk.int32), hist: vk.array(dtype=vk.int32)):
    vk.requires(vk.all_in_range(keys, 0, NBINS))
    vk.requires(hist.shape[0] == NBINS)
    vk.requires(vk.block_dim() >= NBINS)
    local = vk.shared.array(shape=(NBINS,), dtype=vk.int32)
    t = vk.thread_idx()
    i = vk.tid()
    if t < NBINS:
        local[t] = 0
    vk.sync_threads()
    if i < keys.shape[0]:
        vk.atomic_add(local, keys[i], 1)
    vk.sync_threads()
    if t < NBINS:
        vk.atomic_add(hist, t, local[t])


# ------------------------------------------------------------------ host code
def make_inputs(rng, n):
    # a skewed distribution so that some bins are hot (many atomics collide)
    keys = np.minimum(rng.geometric(0.15, n) - 1, NBINS - 1).astype(np.int32)
    return {"keys": keys}


def reference(inputs):
    counts = np.bincount(inputs["keys"], minlength=NBINS).astype(np.int32)
    return {"hist_global": counts, "hist_shared": counts.copy()}


def run(inputs, device="cpu", block_dim=256):
    keys = inputs["keys"].copy()
    n = len(keys)
    hist_global = np.zeros(NBINS, dtype=np.int32)
    vk.launch(histogram_global, max(n, 1), inputs=[keys, hist_global], block_dim=block_dim,
              device=device)
    hist_shared = np.zeros(NBINS, dtype=np.int32)
    dim = max(1, -(-n // block_dim)) * block_dim
    vk.launch(histogram_shared, dim, inputs=[keys, hist_shared], block_dim=block_dim,
              device=device)
    return {"hist_global": hist_global, "hist_shared": hist_shared}


if __name__ == "__main__":
    data = make_inputs(np.random.default_rng(0), 1000)
    got, want = run(data, block_dim=64), reference(data)
    for k in want:
        print("histogram", k, "max abs error:", int(np.max(np.abs(got[k] - want[k]))))
