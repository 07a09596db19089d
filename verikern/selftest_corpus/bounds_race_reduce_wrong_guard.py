# expect: failed bounds,race
# Block tree reduction whose step guard is t <= s instead of t < s. Witness: dim=128 (block_dim 128), step s=64: thread 64 reads buf[128] (out of bounds) and writes buf[64] while thread 0 reads buf[64] in the same interval (race).
# bug: 22:31 bounds
# bug: 22:31 race 22:13
# witness bounds: dim=128, block_dim=128, x=zeros(float32, 128), partial=zeros(float32, 1)
import verikern as vk


@vk.kernel(block_dim=128)
def reduce_tree_wrong_guard(x: vk.array(dtype=vk.float32), partial: vk.array(dtype=vk.float32)):
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
        if t <= s:
            buf[t] = buf[t] + buf[t + s]
        vk.sync_threads()
        s //= 2
    b = vk.block_idx()
    if t == 0 and b < partial.shape[0]:
        partial[b] = buf[0]
