"""Tiled matmul c = a @ b with 16x16 shared tiles.

2-D launch dim=(tiles_y, tiles_x * 256) with block_dim fixed at 256 by the
decorator: the block's 256 threads compute one 16x16 tile of c. Each step
loads one tile of a and one of b (zero-padded at the edges), synchronises,
accumulates, and synchronises again before the next load.
"""
import numpy as np

import verikern as vk

TILE = 16
THREADS = TILE * TILE
MAX_INNER = 1 << 30


@vk.kernel(block_dim=256)
def matmul_tiled(a: vk.array(dtype=vk.float32, ndim=2), b: vk.array(dtype=vk.float32, ndim=2),
                 c: vk.array(dtype=vk.float32, ndim=2)):
    vk.requires(a.shape[1] == b.shape[0])
    # range(0, kdim, TILE) steps its counter past kdim with int32 arithmetic
    # (as Warp does): kdim <= 2**30 keeps that last step from wrapping.
    vk.requires(a.shape[1] <= MAX_INNER)
    vk.requires(c.shape[0] == a.shape[0] and c.shape[1] == b.shape[1])
    vk.requires(vk.launch_dim(1) % THREADS == 0)
    sa = vk.shared.array(shape=(TILE, TILE), dtype=vk.float32)
    sb = vk.shared.array(shape=(TILE, TILE), dtype=vk.float32)
    by, j = vk.tid()
    bx = j // THREADS
    t = j % THREADS
    ty = t // TILE
    tx = t % TILE
    row = by * TILE + ty
    col = bx * TILE + tx
    kdim = a.shape[1]
    acc = 0.0
    for k0 in range(0, kdim, TILE):
        va = 0.0
        if row < a.shape[0] and k0 + tx < kdim:
            va = a[row, k0 + tx]
        sa[ty, tx] = va
        vb = 0.0
        if k0 + ty < kdim and col < b.shape[1]:
            vb = b[k0 + ty, col]
        sb[ty, tx] = vb
        vk.sync_threads()
        for kk in range(TILE):
            acc += sa[ty, kk] * sb[kk, tx]
        vk.sync_threads()
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = acc


# ------------------------------------------------------------------ host code
def make_inputs(rng, n):
    """a is (n, k), b is (k, m) with three different sizes."""
    rows = max(1, n)
    inner = max(1, n // 2 + 5)
    cols = max(1, n // 3 + 7)
    return {
        "a": rng.uniform(0.0, 1.0, (rows, inner)).astype(np.float32),
        "b": rng.uniform(0.0, 1.0, (inner, cols)).astype(np.float32),
    }


def reference(inputs):
    return {"c": inputs["a"].astype(np.float64) @ inputs["b"].astype(np.float64)}


def run(inputs, device="cpu", block_dim=THREADS):
    a = inputs["a"].copy()
    b = inputs["b"].copy()
    c = np.zeros((a.shape[0], b.shape[1]), dtype=np.float32)
    tiles_y = -(-c.shape[0] // TILE)
    tiles_x = -(-c.shape[1] // TILE)
    vk.launch(matmul_tiled, (tiles_y, tiles_x * THREADS), inputs=[a, b, c],
              block_dim=block_dim, device=device)
    return {"c": c}


if __name__ == "__main__":
    data = make_inputs(np.random.default_rng(0), 40)
    got, want = run(data), reference(data)
    print("matmul max abs error:", float(np.max(np.abs(got["c"] - want["c"]))))
