import verikern as vk


@vk.kernel
def scale2d(a: vk.array(dtype=vk.float32, ndim=2), b: vk.array(dtype=vk.float32, ndim=2)):
    i, j = vk.tid()
    if i < a.shape[0] and j < a.shape[1]:
        b[i, j] = a[i, j] * 2.0
