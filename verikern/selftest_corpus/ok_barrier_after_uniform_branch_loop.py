# expect: proved
# A thread-dependent loop (thread t runs t iterations) inside a block-uniform `if`, then a barrier after the join: every thread that took the branch leaves the loop before the join (proofs assume termination), so every thread of the block reaches the barrier.
import verikern as vk


@vk.kernel(block_dim=64)
def triangle_then_reverse(out: vk.array(dtype=vk.float32), flag: vk.int32):
    buf = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    acc = 0.0
    if flag > 0:
        for j in range(t):
            acc = acc + 1.0
    buf[t] = acc
    vk.sync_threads()
    if i < out.shape[0]:
        out[i] = buf[63 - t]
