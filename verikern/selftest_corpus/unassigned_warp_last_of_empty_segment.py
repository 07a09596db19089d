# expect: failed unassigned
# Keeps the last value of each CSR segment, assigned in the loop over the segment; an empty segment (offsets[i] == offsets[i + 1]) never assigns it and the store reads it anyway (Warp builds it: an indeterminate float). Witness: offsets=[0, 0], one thread.
# bug: 20:15 unassigned
# witness unassigned: dim=1, block_dim=1, offsets=array(int32, [0, 0]), values=zeros(float32, 1), last=zeros(float32, 1)
import warp as wp


@wp.kernel
def last_of_segment(offsets: wp.array(dtype=wp.int32), values: wp.array(dtype=float),
                    last: wp.array(dtype=float)):
    i = wp.tid()
    if i + 1 >= offsets.shape[0] or i >= last.shape[0]:
        return
    start = offsets[i]
    end = offsets[i + 1]
    for k in range(start, end):
        if k < 0 or k >= values.shape[0]:
            return
        v = values[k]
    last[i] = v
