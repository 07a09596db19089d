# expect: proved
# The twin of invariant_fails_entry_from_shared.py that clamps the value read back from shared memory to 4 before the loop: the hint j <= 4 holds on entry whatever shared memory holds.
import verikern as vk


@vk.kernel(block_dim=64)
def countdown_from_shared_clamped(out: vk.array(dtype=vk.int32)):
    buf = vk.shared.array(shape=(64,), dtype=vk.int32)
    t = vk.thread_idx()
    i = vk.tid()
    buf[t] = 8
    vk.sync_threads()
    j = buf[63 - t]
    if j > 4:
        j = 4
    acc = 0
    while j > 0:
        vk.invariant(j <= 4)
        acc += j
        j -= 1
    if i < out.shape[0]:
        out[i] = acc
