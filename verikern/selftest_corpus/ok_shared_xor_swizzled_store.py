# expect: proved
# Stores each thread's value at a swizzled slot t ^ 5 of a 64-slot shared buffer (a permutation of the block's slots, as bank-conflict swizzles do) and reads a scattered slot after the barrier. The writer of slot e is thread e ^ 5, not an affine function of e: the uninit decider adds the XOR inverse of the store to its witness terms.
import verikern as vk


@vk.kernel(block_dim=64)
def swizzled_store(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    s = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    s[t ^ 5] = v
    vk.sync_threads()
    if i < out.shape[0]:
        out[i] = s[(t * 3) % 64]
