# expect: proved
# CUDA reduce6-style unrolled block reduction: each `if block_dim >= N: ...; sync` step holds its barrier inside a block-uniform branch. Two threads of one block take the same branches, so the step after a skipped one is never paired with the skipped step's accesses.
import verikern as vk


@vk.kernel
def reduce6_ladder(x: vk.array(dtype=vk.float32), partial: vk.array(dtype=vk.float32)):
    vk.requires(vk.block_dim() == 64 or vk.block_dim() == 128 or vk.block_dim() == 256)
    buf = vk.shared.array(shape=(256,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    buf[t] = v
    vk.sync_threads()
    bd = vk.block_dim()
    if bd >= 256:
        if t < 128:
            buf[t] = buf[t] + buf[t + 128]
        vk.sync_threads()
    if bd >= 128:
        if t < 64:
            buf[t] = buf[t] + buf[t + 64]
        vk.sync_threads()
    if t < 32:
        buf[t] = buf[t] + buf[t + 32]
    vk.sync_threads()
    b = vk.block_idx()
    if t == 0 and b < partial.shape[0]:
        partial[b] = buf[0]
