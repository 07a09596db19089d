# expect: proved
# Naive matmul c = a @ b with a 2-D launch: each thread computes one c[i, j] with a loop over the shared dimension; requires tie the three shapes together.
import verikern as vk


@vk.kernel
def matmul_naive(a: vk.array(dtype=vk.float32, ndim=2), b: vk.array(dtype=vk.float32, ndim=2), c: vk.array(dtype=vk.float32, ndim=2)):
    vk.requires(a.shape[1] == b.shape[0])
    vk.requires(c.shape[0] == a.shape[0] and c.shape[1] == b.shape[1])
    i, j = vk.tid()
    if i < c.shape[0] and j < c.shape[1]:
        acc = 0.0
        for k in range(a.shape[1]):
            acc += a[i, k] * b[k, j]
        c[i, j] = acc
