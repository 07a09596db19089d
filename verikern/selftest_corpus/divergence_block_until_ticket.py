# expect: failed divergence
# block_until on a condition that takes a per-thread ticket from a shared atomic counter, so it is not uniform. Witness: dim=64 (block_dim 64): the thread that draws ticket 40 leaves the loop and reaches the second barrier while the thread that draws ticket 0 waits at the loop's barrier.
# bug: 15:5 divergence
# witness divergence: dim=64, block_dim=64, out=zeros(int32, 64)
import verikern as vk


@vk.kernel(block_dim=64)
def ticket_wait(out: vk.array(dtype=vk.int32)):
    ticket = vk.shared.array(shape=(1,), dtype=vk.int32)
    t = vk.thread_idx()
    if t == 0:
        ticket[0] = 0
    vk.sync_threads()
    vk.block_until(vk.atomic_add(ticket, 0, 1) >= 32)
    vk.sync_threads()
    i = vk.tid()
    if i < out.shape[0]:
        out[i] = t
