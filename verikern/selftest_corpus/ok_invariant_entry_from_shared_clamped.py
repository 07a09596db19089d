# expect: proved
# The twin of invariant_fails_entry_from_shared.py that masks the value read back from shared memory into 0..3 before the loop: the hint j <= 3 holds on entry whatever shared memory holds, and vals[j - 1] stays in bounds.
import verikern as vk


@vk.kernel(block_dim=64)
def countdown_from_shared_masked(vals: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
    vk.requires(vals.shape[0] >= 3)
    buf = vk.shared.array(shape=(64,), dtype=vk.int32)
    t = vk.thread_idx()
    i = vk.tid()
    buf[t] = 7
    vk.sync_threads()
    j = buf[63 - t] & 3
    acc = 0
    while j > 0:
        vk.invariant(j <= 3)
        acc += vals[j - 1]
        j -= 1
    if i < out.shape[0]:
        out[i] = acc
