"""`wp.lower_bound` in both of Warp 1.19's forms, written for verikern's
compatibility suite (valid Warp and valid verikern)."""
import warp as wp

import verikern as vk


@vk.requires(lambda keys, queries, out, out_range, begin, end:
             queries.shape[0] == vk.launch_dim() and out.shape[0] == queries.shape[0]
             and out_range.shape[0] == queries.shape[0]
             and 0 <= begin and begin <= end and end <= keys.shape[0] + 1)
@wp.kernel
def search(keys: wp.array(dtype=float), queries: wp.array(dtype=float), begin: int, end: int,
           out: wp.array(dtype=wp.int32), out_range: wp.array(dtype=wp.int32)):
    i = wp.tid()
    out[i] = wp.lower_bound(keys, queries[i])
    out_range[i] = wp.lower_bound(keys, begin, end, queries[i])


@vk.requires(lambda offsets, ids, segment: ids.shape[0] == vk.launch_dim()
             and segment.shape[0] == ids.shape[0] and offsets.shape[0] > 0)
@wp.kernel
def segment_of(offsets: wp.array(dtype=wp.int64), ids: wp.array(dtype=wp.int64),
               segment: wp.array(dtype=wp.int32)):
    i = wp.tid()
    s = wp.lower_bound(offsets, ids[i])
    segment[i] = s + int(offsets[s] > ids[i]) * -1
