# expect: proved
# Each thread stores a vec3 into its slot of a shared vec3 array and, after the barrier, reads its neighbour's slot back whole: each component has its own constant inner index beside the per-thread slot (the simulator once wrote and read every component at component 0, giving [5, 5, 5] for vec3(3, 4, 5)).
import verikern as vk


@vk.kernel(block_dim=32)
def vec3_element_after_barrier(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.vec3)):
    vk.requires(out.shape[0] == x.shape[0])
    s = vk.shared.array(shape=(32,), dtype=vk.vec3)
    t = vk.thread_idx()
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    s[t] = vk.vec3(3.0, 4.0, 5.0 + v)
    vk.sync_threads()
    if i < out.shape[0]:
        out[i] = s[(t + 1) % 32]
