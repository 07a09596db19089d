# expect: failed invariant
# The loop counter starts at a value read back from shared memory (8, written by every thread before the barrier), and the hint claims j <= 4: false on entry. The entry value is abstracted (shared memory), so only the replay makes this a failure. Witness: dim=64 (block_dim 64).
# bug: 18:9 invariant
# witness invariant: dim=64, block_dim=64, out=zeros(int32, 64)
import verikern as vk


@vk.kernel(block_dim=64)
def countdown_from_shared(out: vk.array(dtype=vk.int32)):
    buf = vk.shared.array(shape=(64,), dtype=vk.int32)
    t = vk.thread_idx()
    i = vk.tid()
    buf[t] = 8
    vk.sync_threads()
    j = buf[63 - t]
    acc = 0
    while j > 0:
        vk.invariant(j <= 4)
        acc += j
        j -= 1
    if i < out.shape[0]:
        out[i] = acc
