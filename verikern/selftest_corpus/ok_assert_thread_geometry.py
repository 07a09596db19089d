# expect: proved
# Asserts facts the hardware guarantees: tid >= 0, thread_idx < block_dim, and tid == block_idx * block_dim + thread_idx in a 1-D launch.
import verikern as vk


@vk.kernel
def geometry_facts(out: vk.array(dtype=vk.int32)):
    i = vk.tid()
    assert i >= 0
    assert vk.thread_idx() < vk.block_dim(), "thread index below block size"
    assert i == vk.block_idx() * vk.block_dim() + vk.thread_idx()
    if i < out.shape[0]:
        out[i] = i
