# expect: failed divergence
# Doubles x through shared memory but the barrier sits in a branch on the thread index. Witness: dim=64 (block_dim 64): thread 0 reaches the barrier, thread 32 does not. Each thread touches only buf[t], so there is no race.
# bug: 17:9 divergence
# witness divergence: dim=64, block_dim=64, x=zeros(float32, 64), out=zeros(float32, 64)
import verikern as vk


@vk.kernel(block_dim=64)
def half_block_barrier(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    buf = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    if i < x.shape[0]:
        buf[t] = x[i]
    if t < 32:
        vk.sync_threads()
    if i < x.shape[0]:
        out[i] = 2.0 * buf[t]
