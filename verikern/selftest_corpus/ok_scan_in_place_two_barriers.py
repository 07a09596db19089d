# expect: proved
# Hillis-Steele scan in place with a barrier between each step's reads and its writes, and another after the writes.
import verikern as vk


@vk.kernel(block_dim=64)
def scan_in_place(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    buf = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    buf[t] = v
    vk.sync_threads()
    offset = 1
    while offset < 64:
        acc = buf[t]
        if t >= offset:
            acc = acc + buf[t - offset]
        vk.sync_threads()
        buf[t] = acc
        vk.sync_threads()
        offset *= 2
    if i < x.shape[0]:
        out[i] = buf[t]
