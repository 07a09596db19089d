# expect: proved
# 5-point Laplacian on the interior of a 2-D grid into a separate output of the same shape; the halo guard keeps every neighbour in bounds.
import verikern as vk


@vk.kernel
def laplacian_5pt(a: vk.array(dtype=vk.float32, ndim=2), out: vk.array(dtype=vk.float32, ndim=2)):
    vk.requires(out.shape[0] == a.shape[0] and out.shape[1] == a.shape[1])
    i, j = vk.tid()
    if i >= 1 and j >= 1 and i + 1 < a.shape[0] and j + 1 < a.shape[1]:
        out[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - 4.0 * a[i, j]
