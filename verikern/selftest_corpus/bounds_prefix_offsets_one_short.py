# expect: failed bounds
# ok_prefix_offsets_one_thread with the contract one element short (counts.shape[0] <= offsets.shape[0]): with as many offsets as counts, the last step writes offsets[counts.shape[0]] (and with no offsets at all, offsets[0]). Witness: one count, one offset.
# bug: 15:9 bounds
# bug: 17:13 bounds
# witness bounds: dim=1, block_dim=1, counts=zeros(int32, 1), offsets=zeros(int32, 1)
import verikern as vk
import warp as wp


@vk.requires(lambda counts, offsets: counts.shape[0] <= offsets.shape[0])
@wp.kernel
def prefix_offsets_one_short(counts: wp.array(dtype=wp.int32), offsets: wp.array(dtype=wp.int32)):
    t = wp.tid()
    if t == 0:
        offsets[0] = 0
        for i in range(counts.shape[0]):
            offsets[i + 1] = offsets[i] + counts[i]
