# expect: failed divergence
# The twin of ok_barrier_after_uniform_branch_loop.py whose thread-dependent loop returns at j == 40: threads 40..63 leave the loop by `return` and never reach the barrier after the join. Witness: dim=64 (block_dim 64), x.shape=(64,): thread 0 reaches the barrier, thread 40 has returned.
# bug: 20:5 divergence
# witness divergence: dim=64, block_dim=64, x=zeros(float32, 64), out=zeros(float32, 64)
import verikern as vk


@vk.kernel(block_dim=64)
def prefix_return_then_reverse(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    buf = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    acc = 0.0
    if x.shape[0] >= 64:
        for j in range(t + 1):
            if j == 40:
                return
            acc = acc + x[j]
    buf[t] = acc
    vk.sync_threads()
    if i < out.shape[0]:
        out[i] = buf[63 - t]
