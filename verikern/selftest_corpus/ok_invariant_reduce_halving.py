# expect: proved
# Block tree reduction whose `s //= 2` loop carries the hint 1 <= s <= 64 (true on every entry to the body), which is all the bounds and race proofs need.
import verikern as vk


@vk.kernel(block_dim=128)
def reduce_tree_hinted(x: vk.array(dtype=vk.float32), partial: vk.array(dtype=vk.float32)):
    buf = vk.shared.array(shape=(128,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    buf[t] = v
    vk.sync_threads()
    s = 64
    while s > 0:
        vk.invariant(s >= 1 and s <= 64)
        if t < s:
            buf[t] = buf[t] + buf[t + s]
        vk.sync_threads()
        s //= 2
    b = vk.block_idx()
    if t == 0 and b < partial.shape[0]:
        partial[b] = buf[0]
