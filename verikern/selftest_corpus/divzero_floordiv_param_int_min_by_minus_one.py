# expect: proved
# Integer-divides every element by a parameter k that the requires keeps non-zero (k = -1 with x = INT_MIN wraps, which is defined, not an error).
import verikern as vk


@vk.kernel
def divide_by_nonzero_param(x: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32), k: vk.int32):
    vk.requires(k != 0)
    vk.requires(out.shape[0] == x.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        out[i] = x[i] // k
