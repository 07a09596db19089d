# expect: proved
# Grid-stride loop in int64 (no wrap possible) doubling every element; the invariant hint k >= 0 and k % stride == i holds (tid < grid_dim * block_dim) and makes threads' elements disjoint.
import verikern as vk


@vk.kernel
def double_grid_stride64(a: vk.array(dtype=vk.float32)):
    i = vk.int64(vk.tid())
    stride = vk.int64(vk.grid_dim()) * vk.int64(vk.block_dim())
    n = vk.int64(a.shape[0])
    k = i
    while k < n:
        vk.invariant(k >= 0 and k % stride == i)
        a[k] = 2.0 * a[k]
        k += stride
