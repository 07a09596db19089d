# expect: failed bounds
# Naive matmul that never requires a.shape[1] == b.shape[0]. Witness: dim=(1, 1), a.shape=(1, 2), b.shape=(1, 1), c.shape=(1, 1): thread (0, 0) reads b[1, 0] at k=1.
# bug: 15:30 bounds
# witness bounds: dim=(1, 1), block_dim=1, a=zeros(float32, (1, 2)), b=zeros(float32, (1, 1)), c=zeros(float32, (1, 1))
import verikern as vk


@vk.kernel
def matmul_naive_unchecked(a: vk.array(dtype=vk.float32, ndim=2), b: vk.array(dtype=vk.float32, ndim=2), c: vk.array(dtype=vk.float32, ndim=2)):
    vk.requires(c.shape[0] == a.shape[0] and c.shape[1] == b.shape[1])
    i, j = vk.tid()
    if i < c.shape[0] and j < c.shape[1]:
        acc = 0.0
        for k in range(a.shape[1]):
            acc += a[i, k] * b[k, j]
        c[i, j] = acc
