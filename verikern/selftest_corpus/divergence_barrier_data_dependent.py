# expect: failed divergence
# Synchronises only the threads whose element is positive (no shared memory, so nothing races). Witness: dim=2, block_dim=2, x=[1.0, -1.0]: thread 0 reaches the barrier, thread 1 does not.
# bug: 15:9 divergence
# witness divergence: dim=2, block_dim=2, x=array(float32, [1.0, -1.0]), out=zeros(float32, 2)
import verikern as vk


@vk.kernel
def barrier_if_positive(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    if v > 0.0:
        vk.sync_threads()
    if i < out.shape[0]:
        out[i] = v
