# expect: proved
# Threads take a thread-dependent branch (even/odd scaling) but every thread reaches the single barrier after it; then each reads its neighbour's shared slot.
import verikern as vk


@vk.kernel(block_dim=64)
def scale_then_exchange(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    buf = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    if t % 2 == 0:
        v = 2.0 * v
    else:
        v = -v
    buf[t] = v
    vk.sync_threads()
    if i < out.shape[0]:
        out[i] = buf[t ^ 1]
