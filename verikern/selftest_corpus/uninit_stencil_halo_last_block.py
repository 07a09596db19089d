# expect: failed uninit
# 1-D three-point stencil through shared memory with a halo: thread 63 loads the right halo element only when it exists, so in the last block the halo sh[65] is never written and thread 63 reads it uninitialised. Witness: dim=64, block_dim=64, x.shape=(64,).
# bug: 25:16 uninit
# witness uninit: dim=64, block_dim=64, x=zeros(float32, 64), y=zeros(float32, 64)
import verikern as vk


@vk.kernel(block_dim=64)
def stencil_halo(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32)):
    vk.requires(y.shape[0] == x.shape[0])
    vk.requires(vk.launch_dim() == x.shape[0])
    sh = vk.shared.array(shape=(66,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    sh[t + 1] = x[i]
    if t == 0:
        left = 0.0
        if i > 0:
            left = x[i - 1]
        sh[0] = left
    if t == 63 and i + 1 < x.shape[0]:
        sh[65] = x[i + 1]
    vk.sync_threads()
    a = sh[t] + sh[t + 1]
    y[i] = a + sh[t + 2]
