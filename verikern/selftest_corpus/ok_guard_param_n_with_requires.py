# expect: proved
# Scales the first n elements; the requires n <= x.shape[0] == out.shape[0] makes the guard i < n sufficient (n may be negative: then no thread works).
import verikern as vk


@vk.kernel
def scale_first_n_checked(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), n: vk.int32, a: vk.float32):
    vk.requires(n <= x.shape[0] and x.shape[0] == out.shape[0])
    i = vk.tid()
    if i < n:
        out[i] = a * x[i]
