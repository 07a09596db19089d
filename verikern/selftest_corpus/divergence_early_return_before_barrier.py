# expect: failed divergence
# Reverses each block through shared memory, but threads past the end of x return before the barrier, so not every thread of the block reaches it (docs/LANGUAGE.md section 4). Witness: dim=64 (block_dim 64), x.shape=out.shape=(1,): thread 0 reaches the barrier, thread 1 has returned.
# bug: 17:5 divergence
# witness divergence: dim=64, block_dim=64, x=zeros(float32, 1), out=zeros(float32, 1)
import verikern as vk


@vk.kernel(block_dim=64)
def reverse_block_early_exit(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    buf = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    if i >= x.shape[0]:
        return
    buf[t] = x[i]
    vk.sync_threads()
    out[i] = buf[63 - t]
