# expect: proved
# Asserts 0 <= idx[i] < 10, which the launch contract all_in_range(idx, 0, 10) guarantees (idx is never written).
import verikern as vk


@vk.kernel
def check_indices_contract(idx: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
    vk.requires(vk.all_in_range(idx, 0, 10))
    vk.requires(out.shape[0] == idx.shape[0])
    i = vk.tid()
    if i < idx.shape[0]:
        v = idx[i]
        assert v >= 0 and v < 10, "index out of range"
        out[i] = v
