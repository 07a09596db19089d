# expect: failed bounds
# Reads the offset after the one wp.lower_bound found; Warp's search returns at most offsets.shape[0] - 1, so on a one-entry offset array the next one is past the end. Witness: offsets=[0], one thread.
# bug: 15:16 bounds
# witness bounds: dim=1, block_dim=1, offsets=array(int32, [0]), ids=array(int32, [0]), count=zeros(int32, 1)
import verikern as vk
import warp as wp


@vk.requires(lambda offsets, ids, count: ids.shape[0] == vk.launch_dim()
             and count.shape[0] == ids.shape[0] and offsets.shape[0] > 0)
@wp.kernel
def next_offset(offsets: wp.array(dtype=wp.int32), ids: wp.array(dtype=wp.int32), count: wp.array(dtype=wp.int32)):
    i = wp.tid()
    s = wp.lower_bound(offsets, ids[i])
    count[i] = offsets[s + 1] - offsets[s]
