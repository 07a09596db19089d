# expect: proved
# Scatters values in arrival order through an int16 slot counter on launches of any size: only threads with i < x.shape[0] take a slot, and x.shape[0] <= 32767, so at most 32,767 calls reach the counter and its old values 0..32,766 never wrap negative or repeat. The ticket facts bounded the counter by the launch only (unknown before, issue 27); z3 now proves that every caller's linear id is below x.shape[0], a launch constant, which bounds the calls.
import verikern as vk


@vk.kernel
def arrival_order_i16_by_shape(x: vk.array(dtype=vk.float32), count: vk.array(dtype=vk.int16),
                               out: vk.array(dtype=vk.float32)):
    vk.requires(count.shape[0] == 1)
    vk.requires(vk.all_in_range(count, 0, 1))
    vk.requires(x.shape[0] <= 32767)
    vk.requires(out.shape[0] == x.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        slot = vk.atomic_add(count, 0, vk.int16(1))
        out[slot] = x[i]
