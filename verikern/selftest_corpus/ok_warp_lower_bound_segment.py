# expect: proved
# Finds each element's segment in a CSR offset array with wp.lower_bound (Warp's binary search: the result is at most offsets.shape[0] - 1), then reads the offset found and its predecessor; offsets holds at least one entry.
import verikern as vk
import warp as wp


@vk.requires(lambda offsets, ids, segment: ids.shape[0] == vk.launch_dim()
             and segment.shape[0] == ids.shape[0] and offsets.shape[0] > 0)
@wp.kernel
def segment_of(offsets: wp.array(dtype=wp.int32), ids: wp.array(dtype=wp.int32),
               segment: wp.array(dtype=wp.int32)):
    i = wp.tid()
    s = wp.lower_bound(offsets, ids[i])
    if offsets[s] > ids[i] and s > 0:
        s = s - 1
    segment[i] = s
