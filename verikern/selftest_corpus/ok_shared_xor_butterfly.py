# expect: proved
# A butterfly all-reduce over a block whose size is a power of two: in each round thread t adds the value of its partner t ^ m (m = 1, 2, 4, ... below block_dim), then publishes its sum. Every partner is a thread of the block, so every shared read was written before the barrier; the partner is not an affine function of t, and the uninit decider takes the element read as the witness thread.
import verikern as vk


@vk.kernel
def butterfly_sum(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires((vk.block_dim() & (vk.block_dim() - 1)) == 0)
    s = vk.shared.array(shape=(1024,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    s[t] = v
    vk.sync_threads()
    m = 1
    while m < vk.block_dim():
        v = v + s[t ^ m]
        vk.sync_threads()
        s[t] = v
        vk.sync_threads()
        m = m * 2
    if i < out.shape[0]:
        out[i] = v
