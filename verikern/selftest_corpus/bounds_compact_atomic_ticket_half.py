# expect: failed bounds
# Stream compaction that assumes at most half of the values pass the filter: out holds only x.shape[0] // 2 elements, so when more values are positive the atomic counter hands out slots past the end. Witness: 4 positive values, out of 2 elements.
# bug: 20:13 bounds
# witness bounds: dim=4, block_dim=4, x=array(float32, [1.0, 1.0, 1.0, 1.0]), count=zeros(int32, 1), out=zeros(float32, 2)
import verikern as vk


@vk.kernel
def compact_positive(x: vk.array(dtype=vk.float32), count: vk.array(dtype=vk.int32),
                     out: vk.array(dtype=vk.float32)):
    vk.requires(count.shape[0] == 1)
    vk.requires(x.shape[0] == vk.launch_dim())
    vk.requires(vk.all_in_range(count, 0, 1))
    vk.requires(out.shape[0] >= x.shape[0] // 2)
    i = vk.tid()
    if i < x.shape[0]:
        v = x[i]
        if v > 0.0:
            slot = vk.atomic_add(count, 0, 1)
            out[slot] = v
