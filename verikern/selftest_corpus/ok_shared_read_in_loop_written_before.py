# expect: proved
# Each thread sums a sliding window of up to 33 slots of a 64-slot shared buffer in a loop (slot t + 32 at most, the last); the buffer is filled (two slots per thread) before the loop and a barrier, and the loop only reads it. The first read of each element happens inside the loop, covered by the write before the loop in every iteration.
import verikern as vk


@vk.kernel(block_dim=32)
def window_sum_from_shared(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), n: int):
    vk.requires(n >= 0 and n <= 33)
    s = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    s[t] = v
    s[t + 32] = v * 0.5
    vk.sync_threads()
    acc = 0.0
    for k in range(n):
        acc += s[t + k]
    if i < out.shape[0]:
        out[i] = acc
