# expect: proved
# saxpy y = a*x + y: the requires ties the two lengths together and every access is guarded by i < x.shape[0].
import verikern as vk


@vk.kernel
def saxpy(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32), a: vk.float32):
    vk.requires(x.shape[0] == y.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        y[i] = a * x[i] + y[i]
