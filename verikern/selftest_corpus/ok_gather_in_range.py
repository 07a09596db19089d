# expect: proved
# Gathers out[i] = x[idx[i]]; all_in_range(idx, 0, len(x)) keeps every read in bounds (repeats are fine for reads).
import verikern as vk


@vk.kernel
def gather_checked(x: vk.array(dtype=vk.float32), idx: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.float32)):
    vk.requires(vk.all_in_range(idx, 0, x.shape[0]))
    i = vk.tid()
    if i < idx.shape[0] and i < out.shape[0]:
        out[i] = x[idx[i]]
