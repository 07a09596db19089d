# expect: failed invariant
# Block tree reduction whose hint claims s >= 2 inside the `s //= 2` loop; the last step runs with s = 1. Witness: dim=128 (block_dim 128), any x: the seventh entry to the loop body (s = 64, 32, ..., 2, 1) has s=1. The rest of the kernel is correct.
# bug: 20:9 invariant
# witness invariant: dim=128, block_dim=128, x=zeros(float32, 128), partial=zeros(float32, 1)
import verikern as vk


@vk.kernel(block_dim=128)
def reduce_tree_bad_hint(x: vk.array(dtype=vk.float32), partial: vk.array(dtype=vk.float32)):
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
        vk.invariant(s >= 2)
        if t < s:
            buf[t] = buf[t] + buf[t + s]
        vk.sync_threads()
        s //= 2
    b = vk.block_idx()
    if t == 0 and b < partial.shape[0]:
        partial[b] = buf[0]
