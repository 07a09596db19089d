# expect: failed bounds
# Hillis-Steele scan (two barriers per step, so race-free) that reads buf[t - offset] without checking t >= offset. Witness: dim=64 (block_dim 64), offset=1: thread 0 reads buf[-1].
# bug: 21:24 bounds
# witness bounds: dim=64, block_dim=64, x=zeros(float32, 64), out=zeros(float32, 64)
import verikern as vk


@vk.kernel(block_dim=64)
def scan_unguarded_offset(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
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
        acc = buf[t] + buf[t - offset]
        vk.sync_threads()
        buf[t] = acc
        vk.sync_threads()
        offset *= 2
    if i < x.shape[0]:
        out[i] = buf[t]
