# expect: proved
# Scatters values in arrival order through an int16 slot counter on launches of at most 32,767 threads: the counter's old values are 0, 1, ..., at most 32,766, never negative and never repeated, so every slot is in bounds and written once.
import verikern as vk


@vk.kernel
def arrival_order_i16_small(x: vk.array(dtype=vk.float32), count: vk.array(dtype=vk.int16),
                             out: vk.array(dtype=vk.float32)):
    vk.requires(count.shape[0] == 1)
    vk.requires(vk.all_in_range(count, 0, 1))
    vk.requires(x.shape[0] == vk.launch_dim())
    vk.requires(vk.launch_dim() <= 32767)
    vk.requires(out.shape[0] == x.shape[0])
    slot = vk.atomic_add(count, 0, vk.int16(1))
    out[slot] = x[vk.tid()]
