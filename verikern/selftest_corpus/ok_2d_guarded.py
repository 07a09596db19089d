# expect: proved
# Scales a 2-D array in place with a 2-D launch; each thread owns a[i, j] and checks both dimensions.
import verikern as vk


@vk.kernel
def scale_2d(a: vk.array(dtype=vk.float32, ndim=2), s: vk.float32):
    i, j = vk.tid()
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] = s * a[i, j]
