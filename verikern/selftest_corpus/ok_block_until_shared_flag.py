# expect: proved
# Thread 0 raises a shared flag, a barrier publishes it, then block_until(flag[0] == 1) reads one element nobody writes any more, so the condition is the same for the whole block (and already true).
import verikern as vk


@vk.kernel(block_dim=64)
def wait_for_flag(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    flag = vk.shared.array(shape=(1,), dtype=vk.int32)
    t = vk.thread_idx()
    i = vk.tid()
    if t == 0:
        flag[0] = 1
    vk.sync_threads()
    vk.block_until(flag[0] == 1)
    if i < x.shape[0]:
        out[i] = x[i]
