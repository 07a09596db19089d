# expect: proved
# Tiled transpose through a 32x33 shared tile; 2-D launch dim=(tiles_y, tiles_x * 256), so the 256 threads of a block share one tile row by and one tile column bx = j // 256; each thread moves 4 rows of the tile.
import verikern as vk


@vk.kernel(block_dim=256)
def transpose_tiled(a: vk.array(dtype=vk.float32, ndim=2), out: vk.array(dtype=vk.float32, ndim=2)):
    vk.requires(out.shape[0] == a.shape[1] and out.shape[1] == a.shape[0])
    vk.requires(vk.launch_dim(1) % 256 == 0)
    tile = vk.shared.array(shape=(32, 33), dtype=vk.float32)
    by, j = vk.tid()
    bx = j // 256
    t = j % 256
    tx = t % 32
    ty = t // 32
    col = bx * 32 + tx
    for k in range(0, 32, 8):
        row = by * 32 + ty + k
        if row < a.shape[0] and col < a.shape[1]:
            tile[ty + k, tx] = a[row, col]
    vk.sync_threads()
    ocol = by * 32 + tx
    for k in range(0, 32, 8):
        orow = bx * 32 + ty + k
        if orow < out.shape[0] and ocol < out.shape[1]:
            out[orow, ocol] = tile[tx, ty + k]
