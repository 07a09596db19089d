# expect: failed divergence
# Each thread repeats a barrier until its own counter, read from global memory, runs out, so threads pass different numbers of barriers. Witness: dim=2, block_dim=2, counts=[0, 1], out.shape=(2,): thread 1 reaches the barrier once, thread 0 never.
# bug: 17:9 divergence
# witness divergence: dim=2, block_dim=2, counts=array(int32, [0, 1]), out=zeros(int32, 2)
import verikern as vk


@vk.kernel
def barrier_per_count(counts: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
    vk.requires(out.shape[0] == counts.shape[0])
    i = vk.tid()
    n = 0
    if i < counts.shape[0]:
        n = counts[i]
    k = 0
    while k < n:
        vk.sync_threads()
        k += 1
    if i < out.shape[0]:
        out[i] = k
