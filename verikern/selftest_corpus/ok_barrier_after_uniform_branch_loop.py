# expect: proved
# A thread-dependent loop (thread t sums x[0..t]) inside a block-uniform `if`, then a barrier after the join: every thread that took the branch leaves the loop before the join (proofs assume termination), so every thread of the block reaches the barrier.
import verikern as vk


@vk.kernel(block_dim=64)
def prefix_then_reverse(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    buf = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    acc = 0.0
    if x.shape[0] >= 64:
        for j in range(t + 1):
            acc = acc + x[j]
    buf[t] = acc
    vk.sync_threads()
    if i < out.shape[0]:
        out[i] = buf[63 - t]
