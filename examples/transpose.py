"""Tiled transpose through a 32x33 shared tile (the extra column avoids bank
conflicts on the transposed read).

2-D launch dim=(tiles_y, tiles_x * 256) with block_dim fixed at 256: the 256
threads of a block share tile row `by` and tile column `bx = j // 256`; thread
t = j % 256 moves rows ty, ty+8, ty+16, ty+24 of column tx of the tile.
"""
import numpy as np

import verikern as vk

TILE = 32
ROWS = 8
THREADS = TILE * ROWS


@vk.kernel(block_dim=256)
def transpose_tiled(a: vk.array(dtype=vk.float32, ndim=2), out: vk.array(dtype=vk.float32, ndim=2)):
    vk.requires(out.shape[0] == a.shape[1] and out.shape[1] == a.shape[0])
    vk.requires(vk.launch_dim(1) % THREADS == 0)
    tile = vk.shared.array(shape=(TILE, TILE + 1), dtype=vk.float32)
    by, j = vk.tid()
    bx = j // THREADS
    t = j % THREADS
    tx = t % TILE
    ty = t // TILE
    col = bx * TILE + tx
    for k in range(0, TILE, ROWS):
        row = by * TILE + ty + k
        v = 0.0
        if row < a.shape[0] and col < a.shape[1]:
            v = a[row, col]
        tile[ty + k, tx] = v   # zero-padded: every tile element is written
    vk.sync_threads()
    ocol = by * TILE + tx
    for k in range(0, TILE, ROWS):
        orow = bx * TILE + ty + k
        if orow < out.shape[0] and ocol < out.shape[1]:
            out[orow, ocol] = tile[tx, ty + k]


# ------------------------------------------------------------------ host code
def make_inputs(rng, n):
    """An (n, m) matrix with m != n, so a swapped index would show."""
    rows = max(1, n)
    cols = max(1, n // 2 + 3)
    return {"a": rng.standard_normal((rows, cols)).astype(np.float32)}


def reference(inputs):
    return {"out": np.ascontiguousarray(inputs["a"].T)}


def run(inputs, device="cpu", block_dim=THREADS):
    a = inputs["a"].copy()
    rows, cols = a.shape
    out = np.zeros((cols, rows), dtype=np.float32)
    tiles_y = -(-rows // TILE)
    tiles_x = -(-cols // TILE)
    vk.launch(transpose_tiled, (tiles_y, tiles_x * THREADS), inputs=[a, out],
              block_dim=block_dim, device=device)
    return {"out": out}


if __name__ == "__main__":
    data = make_inputs(np.random.default_rng(0), 70)
    got, want = run(data), reference(data)
    print("transpose max abs error:", float(np.max(np.abs(got["out"] - want["out"]))))
