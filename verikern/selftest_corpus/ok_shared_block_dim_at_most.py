# expect: proved
# Rotates each block by one element through a 128-element shared buffer; requires block_dim <= 128 is enough (the rotation is modulo block_dim, never zero); elements past the end are zero-padded, so every shared element the block reads was written.
import verikern as vk


@vk.kernel
def rotate_block(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(vk.block_dim() <= 128)
    vk.requires(out.shape[0] == x.shape[0])
    buf = vk.shared.array(shape=(128,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    buf[t] = v
    vk.sync_threads()
    if i < out.shape[0]:
        out[i] = buf[(t + 1) % vk.block_dim()]
