# expect: proved
# Naive transpose with a 2-D launch: out[j, i] = a[i, j]; the requires gives out the transposed shape and the guard checks a's shape.
import verikern as vk


@vk.kernel
def transpose_naive(a: vk.array(dtype=vk.float32, ndim=2), out: vk.array(dtype=vk.float32, ndim=2)):
    vk.requires(out.shape[0] == a.shape[1] and out.shape[1] == a.shape[0])
    i, j = vk.tid()
    if i < a.shape[0] and j < a.shape[1]:
        out[j, i] = a[i, j]
