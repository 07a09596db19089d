# expect: failed race
# Repeated 3-point smoothing in shared memory with only one barrier per step: a thread's write of step k races with its neighbour's read of step k. Witness: dim=64 (block_dim 64), steps=1: thread 1 writes buf[1] while thread 0 reads buf[1].
# bug: 24:20 race 28:9
# bug: 26:21 race 28:9
# witness race: dim=64, block_dim=64, x=zeros(float32, 64), out=zeros(float32, 64), steps=1
import verikern as vk


@vk.kernel(block_dim=64)
def smooth_block_one_sync(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), steps: vk.int32):
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
        v = 0.5 * v + 0.25 * (left + right)
        buf[t] = v
        vk.sync_threads()
    if i < x.shape[0]:
        out[i] = v
