# expect: proved
# Scatters x through a permutation: all_in_range keeps out[perm[i]] in bounds and all_distinct makes the writes of distinct threads distinct.
import verikern as vk


@vk.kernel
def scatter_perm(x: vk.array(dtype=vk.float32), perm: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.float32)):
    vk.requires(vk.all_in_range(perm, 0, out.shape[0]))
    vk.requires(vk.all_distinct(perm))
    i = vk.tid()
    if i < perm.shape[0] and i < x.shape[0]:
        out[perm[i]] = x[i]
