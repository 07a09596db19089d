# expect: proved
# Repeats a 3-point smoothing of each block's values in shared memory `steps` times; reads and writes of every step are separated by barriers and the trip count is a parameter (uniform).
import verikern as vk


@vk.kernel(block_dim=64)
def smooth_block(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), steps: vk.int32):
    vk.requires(out.shape[0] == x.shape[0])
    buf = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    buf[t] = v
    vk.sync_threads()
    for k in range(steps):
        left = v
        right = v
        if t > 0:
            left = buf[t - 1]
        if t < 63:
            right = buf[t + 1]
        vk.sync_threads()
        v = 0.5 * v + 0.25 * (left + right)
        buf[t] = v
        vk.sync_threads()
    if i < x.shape[0]:
        out[i] = v
