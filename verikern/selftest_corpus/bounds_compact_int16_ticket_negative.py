# expect: failed bounds
# Stream compaction with an int16 slot counter on launches of up to 65,536 threads: after 32,768 increments the counter's old value is -32768, a negative slot. The counter never repeats a value below 65,537 calls, so there is no race, only the bounds failure. Witness: 32,769 non-negative values; thread 32768 writes out[-32768].
# bug: 21:13 bounds
# witness bounds: dim=32769, block_dim=256, x=zeros(float32, 32769), count=zeros(int16, 1), out=zeros(float32, 32769)
import verikern as vk


@vk.kernel
def compact_nonnegative_i16(x: vk.array(dtype=vk.float32), count: vk.array(dtype=vk.int16),
                            out: vk.array(dtype=vk.float32)):
    vk.requires(count.shape[0] == 1)
    vk.requires(vk.all_in_range(count, 0, 1))
    vk.requires(x.shape[0] == vk.launch_dim())
    vk.requires(vk.launch_dim() <= 65536)
    vk.requires(out.shape[0] == x.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        v = x[i]
        if v >= 0.0:
            slot = vk.atomic_add(count, 0, vk.int16(1))
            out[slot] = v
