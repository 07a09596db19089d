# expect: proved
# Hillis-Steele inclusive scan of each 64-thread block in a double-buffered shared array: every step reads row src and writes row 1 - src, one barrier per step.
import verikern as vk


@vk.kernel(block_dim=64)
def scan_double_buffer(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    buf = vk.shared.array(shape=(2, 64), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    buf[0, t] = v
    vk.sync_threads()
    src = 0
    offset = 1
    while offset < 64:
        dst = 1 - src
        acc = buf[src, t]
        if t >= offset:
            acc = acc + buf[src, t - offset]
        buf[dst, t] = acc
        vk.sync_threads()
        src = dst
        offset *= 2
    if i < x.shape[0]:
        out[i] = buf[src, t]
