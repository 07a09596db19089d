# expect: failed bounds,race
# The segment scaling of ok_block_segments_range with its loop running to seg_len + 1: each block also scales the first element of the next segment (a race with the next block) and the last block reads and writes one past the end of data. Witness: dim=512, block_dim=256, seg_len=2: block 0 thread 2 and block 1 thread 0 both write data[2] (data.shape=(5,)), and with data.shape=(4,) block 1 thread 2 reads data[4].
# bug: 18:9 bounds
# bug: 18:26 bounds
# bug: 18:9 race 18:9
# bug: 18:26 race 18:9
# witness bounds: dim=512, block_dim=256, data=zeros(float32, 4), seg_len=2
# witness race: dim=512, block_dim=256, data=zeros(float32, 5), seg_len=2
import warp as wp


@wp.kernel(block_dim=256)
def scale_segments_one_past_end(data: wp.array(dtype=wp.float32), seg_len: wp.int32):
    wp.requires(seg_len >= 1 and seg_len <= 1 << 20)
    wp.requires(wp.grid_dim() <= data.shape[0] // seg_len)
    base = wp.block_idx() * seg_len
    for k in range(wp.thread_idx(), seg_len + 1, 256):
        data[base + k] = data[base + k] * 0.5
