# expect: proved
# Reverses every even-numbered block through shared memory; the barrier's branch depends on block_idx only, which is the same for the whole block; elements past the end are zero-padded, so every shared element the block reads was written.
import verikern as vk


@vk.kernel(block_dim=64)
def reverse_even_blocks(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    buf = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    if vk.block_idx() % 2 == 0:
        v = 0.0
        if i < x.shape[0]:
            v = x[i]
        buf[t] = v
        vk.sync_threads()
        if i < out.shape[0]:
            out[i] = buf[63 - t]
