# expect: proved
# Transposes a matrix through a 16x17 shared tile stored column-major (tile[x, y] holds a[row y, column x] of the tile) from a 1-D launch: block b handles tile row b // tiles_x and tile column b % tiles_x; edge tiles are guarded on both sides of the barrier.
import warp as wp


@wp.kernel(block_dim=256)
def transpose_tiles(a: wp.array(dtype=wp.float32, ndim=2), out: wp.array(dtype=wp.float32, ndim=2), tiles_x: wp.int32):
    wp.requires(tiles_x >= 1)
    wp.requires(out.shape[0] == a.shape[1] and out.shape[1] == a.shape[0])
    tile = wp.shared.array(shape=(16, 17), dtype=wp.float32)
    b = wp.block_idx()
    t = wp.thread_idx()
    by = b // tiles_x
    bx = b % tiles_x
    tx = t % 16
    ty = t // 16
    row = by * 16 + ty
    col = bx * 16 + tx
    if row < a.shape[0] and col < a.shape[1]:
        tile[tx, ty] = a[row, col]
    wp.sync_threads()
    orow = bx * 16 + ty
    ocol = by * 16 + tx
    if orow < out.shape[0] and ocol < out.shape[1]:
        out[orow, ocol] = tile[ty, tx]
