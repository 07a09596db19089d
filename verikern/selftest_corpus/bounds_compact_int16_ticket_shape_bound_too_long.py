# expect: failed bounds
# Stream compaction through an int16 slot counter, the callers bounded by i < x.shape[0] with x.shape[0] <= 32769: two more than the counter holds, so the 32,769th call gets the old value -32768, a negative slot. The near miss of the caller bound (k < x.shape[0] admits k = 32768). The counter does not repeat below 65,537 calls, so there is no race. Witness: 32,769 non-negative values; thread 32768 writes out[-32768].
# bug: 20:13 bounds
# witness bounds: dim=32769, block_dim=256, x=zeros(float32, 32769), count=zeros(int16, 1), out=zeros(float32, 32769)
import verikern as vk


@vk.kernel
def compact_i16_by_shape_too_long(x: vk.array(dtype=vk.float32), count: vk.array(dtype=vk.int16),
                                  out: vk.array(dtype=vk.float32)):
    vk.requires(count.shape[0] == 1)
    vk.requires(vk.all_in_range(count, 0, 1))
    vk.requires(x.shape[0] <= 32769)
    vk.requires(out.shape[0] == x.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        v = x[i]
        if v >= 0.0:
            slot = vk.atomic_add(count, 0, vk.int16(1))
            out[slot] = v
