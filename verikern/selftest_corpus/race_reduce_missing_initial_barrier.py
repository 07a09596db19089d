# expect: failed race,uninit
# Block tree reduction without the barrier between loading buf[t] and the first step. Witness: dim=128 (block_dim 128): thread 64 writes buf[64] while thread 0 reads buf[0 + 64] in step s=64. The same missing barrier lets buf[0 + 64] be read before its write happens (uninit).
# bug: 18:5 race 22:31
# bug: 22:31 uninit
# witness race: dim=128, block_dim=128, x=zeros(float32, 128), partial=zeros(float32, 1)
# witness uninit: dim=128, block_dim=128, x=zeros(float32, 128), partial=zeros(float32, 1)
import verikern as vk


@vk.kernel(block_dim=128)
def reduce_tree_no_load_barrier(x: vk.array(dtype=vk.float32), partial: vk.array(dtype=vk.float32)):
    buf = vk.shared.array(shape=(128,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    buf[t] = v
    s = 64
    while s > 0:
        if t < s:
            buf[t] = buf[t] + buf[t + s]
        vk.sync_threads()
        s //= 2
    b = vk.block_idx()
    if t == 0 and b < partial.shape[0]:
        partial[b] = buf[0]
