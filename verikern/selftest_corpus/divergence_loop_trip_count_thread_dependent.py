# expect: failed divergence
# Each thread passes t % 4 barriers in a loop, a thread-dependent count. Witness: dim=64 (block_dim 64): thread 0 passes no barrier, thread 1 passes one.
# bug: 14:9 divergence
# witness divergence: dim=64, block_dim=64, out=zeros(float32, 64)
import verikern as vk


@vk.kernel(block_dim=64)
def uneven_barrier_loop(out: vk.array(dtype=vk.float32)):
    t = vk.thread_idx()
    i = vk.tid()
    n = t % 4
    for k in range(n):
        vk.sync_threads()
    if i < out.shape[0]:
        out[i] = float(n)
