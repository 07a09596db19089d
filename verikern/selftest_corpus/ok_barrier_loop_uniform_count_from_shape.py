# expect: proved
# Sums x tile by tile: each block stages 64 elements per step in shared memory, all threads run the same number of steps (len(x) // 64 + 1), and each thread adds up the whole staged tile.
import verikern as vk


@vk.kernel(block_dim=64)
def tile_sums(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == vk.launch_dim())
    buf = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    acc = 0.0
    for step in range(x.shape[0] // 64 + 1):
        j = step * 64 + t
        v = 0.0
        if j < x.shape[0]:
            v = x[j]
        buf[t] = v
        vk.sync_threads()
        for k in range(64):
            acc += buf[k]
        vk.sync_threads()
    out[i] = acc
