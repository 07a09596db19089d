# expect: proved
# Stream compaction: each thread with a positive value takes a slot with vk.atomic_add on a counter that starts at 0; every call returns a distinct slot below the number of threads, so out (one element per thread) has room and no two threads write one slot.
import verikern as vk


@vk.kernel
def compact_positive(x: vk.array(dtype=vk.float32), count: vk.array(dtype=vk.int32),
                     out: vk.array(dtype=vk.float32)):
    vk.requires(count.shape[0] == 1)
    vk.requires(x.shape[0] == vk.launch_dim())
    vk.requires(vk.all_in_range(count, 0, 1))
    vk.requires(out.shape[0] >= x.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        v = x[i]
        if v > 0.0:
            slot = vk.atomic_add(count, 0, 1)
            out[slot] = v
