# expect: proved
# prove-args: --block-dim 128
# Reverses each block of 128 elements through shared memory; the block size is fixed only on the command line (--block-dim 128), which the proof may assume; elements past the end are zero-padded, so every shared element the block reads was written.
import verikern as vk


@vk.kernel
def reverse_block_cli(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
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
        out[i] = buf[127 - t]
