# expect: proved
# Zeroes a 2-D array without a guard: the requires fixes the launch to exactly the array's shape, and tid() components are below their launch dims.
import verikern as vk


@vk.kernel
def zero_2d_exact_launch(a: vk.array(dtype=vk.float32, ndim=2)):
    vk.requires(vk.launch_dim(0) == a.shape[0] and vk.launch_dim(1) == a.shape[1])
    i, j = vk.tid()
    a[i, j] = 0.0
