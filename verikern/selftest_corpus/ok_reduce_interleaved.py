# expect: proved
# Interleaved-addressing block reduction: step `stride` (1, 2, 4, ... 64) lets thread t add buf[2*stride*t + stride] into buf[2*stride*t]; writes land on multiples of 2*stride, reads on odd multiples of stride.
import verikern as vk


@vk.kernel(block_dim=128)
def reduce_interleaved(x: vk.array(dtype=vk.float32), partial: vk.array(dtype=vk.float32)):
    buf = vk.shared.array(shape=(128,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    buf[t] = v
    vk.sync_threads()
    stride = 1
    while stride < 128:
        idx = 2 * stride * t
        if idx + stride < 128:
            buf[idx] = buf[idx] + buf[idx + stride]
        vk.sync_threads()
        stride *= 2
    b = vk.block_idx()
    if t == 0 and b < partial.shape[0]:
        partial[b] = buf[0]
