# expect: proved
# Block sum reduction: 128 threads load (zero-padded) into shared memory, the active half shrinks with `s //= 2` and a barrier per step, thread 0 writes the block's partial sum.
import verikern as vk


@vk.kernel(block_dim=128)
def reduce_tree(x: vk.array(dtype=vk.float32), partial: vk.array(dtype=vk.float32)):
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
        if t < s:
            buf[t] = buf[t] + buf[t + s]
        vk.sync_threads()
        s //= 2
    b = vk.block_idx()
    if t == 0 and b < partial.shape[0]:
        partial[b] = buf[0]
