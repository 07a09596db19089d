# expect: proved
# Asserts i + 1 > i: the total thread count is below 2**31, so tid <= 2**31 - 2 and i + 1 never wraps.
import verikern as vk


@vk.kernel
def next_index(out: vk.array(dtype=vk.int32)):
    i = vk.tid()
    assert i + 1 > i
    if i < out.shape[0]:
        out[i] = i + 1
