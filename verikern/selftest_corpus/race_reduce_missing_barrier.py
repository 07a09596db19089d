# expect: failed race
# Block tree reduction with no barrier inside the `s //= 2` loop. Witness: dim=128 (block_dim 128), any x: thread 32 writes buf[32] in step s=64 while thread 0 reads buf[32] in step s=32, no barrier between.
# bug: 21:31 race 21:13
# witness race: dim=128, block_dim=128, x=zeros(float32, 128), partial=zeros(float32, 1)
import verikern as vk


@vk.kernel(block_dim=128)
def reduce_tree_no_loop_barrier(x: vk.array(dtype=vk.float32), partial: vk.array(dtype=vk.float32)):
    buf = vk.shared.array(shape=(128,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    buf[t] = v
    vk.sync_threads()
    s = 64
    while s > 0:
        if t < s:
            buf[t] = buf[t] + buf[t + s]
        s //= 2
    vk.sync_threads()
    b = vk.block_idx()
    if t == 0 and b < partial.shape[0]:
        partial[b] = buf[0]
