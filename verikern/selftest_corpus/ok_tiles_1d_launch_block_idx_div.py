# expect: proved
# Scales an image in 16x16 tiles from a 1-D launch: block b handles tile row b // tiles_x and tile column b % tiles_x (tiles_x is a parameter), each of its 256 threads one pixel; edge tiles are guarded.
import warp as wp


@wp.kernel(block_dim=256)
def scale_tiles(src: wp.array(dtype=wp.float32, ndim=2), dst: wp.array(dtype=wp.float32, ndim=2), tiles_x: wp.int32):
    wp.requires(tiles_x >= 1)
    wp.requires(dst.shape[0] == src.shape[0] and dst.shape[1] == src.shape[1])
    b = wp.block_idx()
    t = wp.thread_idx()
    ty = b // tiles_x
    tx = b % tiles_x
    row = ty * 16 + t // 16
    col = tx * 16 + t % 16
    if row < src.shape[0] and col < src.shape[1]:
        dst[row, col] = src[row, col] * 0.25
