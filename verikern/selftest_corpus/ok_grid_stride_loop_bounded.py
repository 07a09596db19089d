# expect: proved
# Grid-stride loop in int32 doubling every element; requires keep the launch and the array below 2**29, so k + stride cannot wrap, and k stays congruent to the thread id modulo the stride.
import verikern as vk


@vk.kernel
def double_grid_stride(a: vk.array(dtype=vk.float32)):
    vk.requires(vk.launch_dim() <= 536870912 and a.shape[0] <= 536870912)
    i = vk.tid()
    stride = vk.grid_dim() * vk.block_dim()
    k = i
    while k < a.shape[0]:
        a[k] = 2.0 * a[k]
        k += stride
