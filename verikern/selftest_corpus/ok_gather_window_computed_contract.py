# expect: proved
# Gathers x[idx[i]] where idx's contract is all_in_range(idx, n - 4, n), x has n elements and n >= 4: every index is in [0, n).
import verikern as vk


@vk.kernel
def gather_window_ok(idx: vk.array(dtype=vk.int32), x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), n: int):
    vk.requires(vk.all_in_range(idx, n - 4, n))
    vk.requires(x.shape[0] == n and n >= 4)
    i = vk.tid()
    if i < out.shape[0] and i < idx.shape[0]:
        out[i] = x[idx[i]]
