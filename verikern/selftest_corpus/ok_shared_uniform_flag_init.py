# expect: proved
# A block-uniform flag (a scalar parameter) selects whether the block stages x through shared memory; the store, the barrier and the read sit under the same uniform condition, so every read element was written by its thread's neighbour.
import verikern as vk


@vk.kernel(block_dim=64)
def staged_if_enabled(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), enabled: vk.int32):
    vk.requires(out.shape[0] == x.shape[0])
    buf = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    if enabled != 0:
        v = 0.0
        if i < x.shape[0]:
            v = x[i]
        buf[t] = v
        vk.sync_threads()
        if i < out.shape[0]:
            out[i] = buf[(t + 1) % 64]
