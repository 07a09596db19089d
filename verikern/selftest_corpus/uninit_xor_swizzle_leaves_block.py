# expect: failed uninit
# The swizzle mask is 64, the block size, instead of a value below it: thread t stores at slot t ^ 64 = t + 64, so slots 0..63 of the 128-slot buffer are never written and every read of s[(t * 3) % 64] is uninitialised. Witness: dim=64, block_dim=64.
# bug: 20:18 uninit
# witness uninit: dim=64, block_dim=64, x=zeros(float32, 64), out=zeros(float32, 64)
import verikern as vk


@vk.kernel(block_dim=64)
def swizzled_store_mask_too_wide(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    s = vk.shared.array(shape=(128,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    s[t ^ 64] = v
    vk.sync_threads()
    if i < out.shape[0]:
        out[i] = s[(t * 3) % 64]
