# expect: failed bounds,uninit
# Block tree reduction over a 128-element shared buffer, but nothing fixes or bounds block_dim. Witness: dim=256, block_dim=256: thread 128 writes buf[128]. With block_dim=64, buf[64..127] are never written and thread 0 reads buf[0 + 64] uninitialised (witness uninit).
# bug: 18:5 bounds
# bug: 23:31 uninit
# witness bounds: dim=256, block_dim=256, x=zeros(float32, 256), partial=zeros(float32, 1)
# witness uninit: dim=64, block_dim=64, x=zeros(float32, 64), partial=zeros(float32, 1)
import verikern as vk


@vk.kernel
def reduce_tree_unfixed_block(x: vk.array(dtype=vk.float32), partial: vk.array(dtype=vk.float32)):
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
        vk.sync_threads()
        s //= 2
    b = vk.block_idx()
    if t == 0 and b < partial.shape[0]:
        partial[b] = buf[0]
