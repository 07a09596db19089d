# expect: proved
# A @vk.func wraps an index into [0, n) and asserts the result is in range; the kernel calls it only with i >= 0 and n >= 1.
import verikern as vk


@vk.func
def wrap_index(i: vk.int32, n: vk.int32) -> vk.int32:
    r = i % n
    assert r >= 0 and r < n
    return r


@vk.kernel
def cyclic_copy(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < out.shape[0] and x.shape[0] > 0:
        out[i] = x[wrap_index(i, x.shape[0])]
