# expect: failed race
# Scales an image in 16x16 tiles from a 1-D launch (block b: tile row b // tiles_x, tile column b % tiles_x), but tile columns start every 8 pixels instead of 16, so neighbouring tiles overlap. Witness: dim=512, tiles_x=2, 16x32 image: thread 8 of block 0 and thread 0 of block 1 both write dst[0, 8].
# bug: 19:9 race 19:9
# witness race: dim=512, block_dim=256, src=zeros(float32, (16, 32)), dst=zeros(float32, (16, 32)), tiles_x=2
import warp as wp


@wp.kernel(block_dim=256)
def scale_tiles_overlap(src: wp.array(dtype=wp.float32, ndim=2), dst: wp.array(dtype=wp.float32, ndim=2), tiles_x: wp.int32):
    wp.requires(tiles_x >= 1)
    wp.requires(dst.shape[0] == src.shape[0] and dst.shape[1] == src.shape[1])
    b = wp.block_idx()
    t = wp.thread_idx()
    ty = b // tiles_x
    tx = b % tiles_x
    row = ty * 16 + t // 16
    col = tx * 8 + t % 16
    if row < src.shape[0] and col < src.shape[1]:
        dst[row, col] = src[row, col] * 0.25
