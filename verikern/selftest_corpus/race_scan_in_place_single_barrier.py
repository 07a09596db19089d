# expect: failed race
# Hillis-Steele scan in place with one barrier per step: buf[t] += buf[t - offset] reads an element another thread writes in the same step. Witness: dim=64 (block_dim 64), offset=1: thread 1 writes buf[1] while thread 2 reads buf[1].
# bug: 22:31 race 22:13
# witness race: dim=64, block_dim=64, x=zeros(float32, 64), out=zeros(float32, 64)
import verikern as vk


@vk.kernel(block_dim=64)
def scan_in_place_racy(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
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
        if t >= offset:
            buf[t] = buf[t] + buf[t - offset]
        vk.sync_threads()
        offset *= 2
    if i < x.shape[0]:
        out[i] = buf[t]
