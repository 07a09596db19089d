# expect: proved
# Phases switched by a uniform flag: in mode 1 every thread doubles its own slot and then synchronises; the reversed read after the branch meets that write only in the other mode, which no thread of the same block can be in.
import verikern as vk


@vk.kernel(block_dim=64)
def reverse_with_optional_double(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), mode: vk.int32):
    vk.requires(out.shape[0] == x.shape[0])
    buf = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    buf[t] = v
    vk.sync_threads()
    if mode == 1:
        buf[t] = buf[t] * 2.0
        vk.sync_threads()
    if i < x.shape[0]:
        out[i] = buf[63 - t]
