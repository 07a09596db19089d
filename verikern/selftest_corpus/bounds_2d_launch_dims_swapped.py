# expect: failed bounds
# Zeroes a 2-D array without a guard but the requires ties launch dims to the transposed shape. Witness: dim=(2, 1), a.shape=(1, 2): thread (1, 0) writes a[1, 0].
# bug: 12:5 bounds
# witness bounds: dim=(2, 1), block_dim=2, a=zeros(float32, (1, 2))
import verikern as vk


@vk.kernel
def zero_2d_swapped_launch(a: vk.array(dtype=vk.float32, ndim=2)):
    vk.requires(vk.launch_dim(0) == a.shape[1] and vk.launch_dim(1) == a.shape[0])
    i, j = vk.tid()
    a[i, j] = 0.0
