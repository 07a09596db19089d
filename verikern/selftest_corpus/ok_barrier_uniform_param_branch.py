# expect: proved
# Rotates each block's elements by one through shared memory only when the scalar flag is set; the barrier's branch depends only on a parameter, so it is uniform; elements past the end are zero-padded, so every shared element the block reads was written.
import verikern as vk


@vk.kernel(block_dim=64)
def rotate_block_if(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), enabled: vk.int32):
    vk.requires(out.shape[0] == x.shape[0])
    buf = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    buf[t] = v
    if enabled != 0:
        vk.sync_threads()
        if i < x.shape[0]:
            out[i] = buf[(t + 1) % 64]
