# expect: failed race
# The twin of ok_reduce6_block_dim_ladder.py whose `block_dim >= 128` step has no barrier: the 64-wide step runs in the same barrier interval as the 32-wide one. Witness: dim=128 (block_dim 128): thread 32 writes buf[32] while thread 0 reads buf[32 + 0].
# bug: 26:13 race 28:27
# witness race: dim=128, block_dim=128, x=zeros(float32, 128), partial=zeros(float32, 1)
import verikern as vk


@vk.kernel
def reduce6_ladder_missing_sync(x: vk.array(dtype=vk.float32), partial: vk.array(dtype=vk.float32)):
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
    if t < 32:
        buf[t] = buf[t] + buf[t + 32]
    vk.sync_threads()
    b = vk.block_idx()
    if t == 0 and b < partial.shape[0]:
        partial[b] = buf[0]
