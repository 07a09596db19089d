# expect: failed bounds,uninit
# Rotates each block by one element through a 128-element shared buffer, but nothing bounds block_dim. Witness: dim=256, block_dim=256: thread 128 writes buf[128]. Only threads with i < x.shape[0] fill buf, so with x.shape=(1,) thread 0 reads buf[1] uninitialised (witness uninit).
# bug: 18:9 bounds
# bug: 21:18 bounds
# bug: 21:18 uninit
# witness bounds: dim=256, block_dim=256, x=zeros(float32, 256), out=zeros(float32, 256)
# witness uninit: dim=64, block_dim=64, x=zeros(float32, 1), out=zeros(float32, 1)
import verikern as vk


@vk.kernel
def rotate_block_unbounded(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    buf = vk.shared.array(shape=(128,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    if i < x.shape[0]:
        buf[t] = x[i]
    vk.sync_threads()
    if i < out.shape[0]:
        out[i] = buf[(t + 1) % vk.block_dim()]
