# expect: proved
# Each block scales its own segment data[b * seg_len : (b + 1) * seg_len] with a block-stride range loop; the grid is bounded by data.shape[0] // seg_len, so every segment lies inside data and segments never overlap. Needs monotonicity of b * seg_len against the quotient (b < data.shape[0] // seg_len).
import warp as wp


@wp.kernel(block_dim=256)
def scale_segments(data: wp.array(dtype=wp.float32), seg_len: wp.int32):
    wp.requires(seg_len >= 1 and seg_len <= 1 << 20)
    wp.requires(wp.grid_dim() <= data.shape[0] // seg_len)
    base = wp.block_idx() * seg_len
    for k in range(wp.thread_idx(), seg_len, 256):
        data[base + k] = data[base + k] * 0.5
