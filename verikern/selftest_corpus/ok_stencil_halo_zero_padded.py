# expect: proved
# 1-D three-point stencil through shared memory with a halo: thread 0 and thread 63 write the left and right halo elements in every block (zero past the ends of x), so every element the block reads was written before the barrier.
import verikern as vk


@vk.kernel(block_dim=64)
def stencil_halo_padded(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32)):
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
    if t == 63:
        right = 0.0
        if i + 1 < x.shape[0]:
            right = x[i + 1]
        sh[65] = right
    vk.sync_threads()
    a = sh[t] + sh[t + 1]
    y[i] = a + sh[t + 2]
