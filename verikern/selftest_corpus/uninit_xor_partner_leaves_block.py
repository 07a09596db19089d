# expect: failed uninit
# The butterfly's last round uses m == block_dim (the loop test is <= instead of <), so thread t reads s[t ^ block_dim], an element past the block's threads that no thread wrote. Witness: dim=4, block_dim=4: in the round m = 4, thread 0 reads s[4].
# bug: 22:17 uninit
# witness uninit: dim=4, block_dim=4, x=zeros(float32, 4), out=zeros(float32, 4)
import verikern as vk


@vk.kernel
def butterfly_sum_one_round_too_many(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    vk.requires((vk.block_dim() & (vk.block_dim() - 1)) == 0)
    s = vk.shared.array(shape=(2048,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    s[t] = v
    vk.sync_threads()
    m = 1
    while m <= vk.block_dim():
        v = v + s[t ^ m]
        vk.sync_threads()
        s[t] = v
        vk.sync_threads()
        m = m * 2
    if i < out.shape[0]:
        out[i] = v
