# expect: failed race,uninit
# Transposes a matrix through a column-major 16x17 shared tile from a 1-D launch (block b: tile row b // tiles_x, tile column b % tiles_x) but without the barrier between writing and reading the tile. Witness: dim=256, tiles_x=1, 16x16 matrix: thread 16 writes tile[0, 1] while thread 1 reads it (a race, and a read of an element not yet written).
# bug: 23:9 race 27:27
# bug: 27:27 uninit
# witness race: dim=256, block_dim=256, a=zeros(float32, (16, 16)), out=zeros(float32, (16, 16)), tiles_x=1
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
    orow = bx * 16 + ty
    ocol = by * 16 + tx
    if orow < out.shape[0] and ocol < out.shape[1]:
        out[orow, ocol] = tile[ty, tx]
