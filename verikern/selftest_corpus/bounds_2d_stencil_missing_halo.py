# expect: failed bounds
# 5-point Laplacian guarded only by i < rows and j < cols (no halo guard). Witness: dim=(1, 1), a.shape=out.shape=(1, 1): thread (0, 0) reads a[-1, 0].
# bug: 16:21 bounds
# bug: 16:35 bounds
# bug: 16:49 bounds
# bug: 16:63 bounds
# witness bounds: dim=(1, 1), block_dim=1, a=zeros(float32, (1, 1)), out=zeros(float32, (1, 1))
import verikern as vk


@vk.kernel
def laplacian_5pt_no_halo(a: vk.array(dtype=vk.float32, ndim=2), out: vk.array(dtype=vk.float32, ndim=2)):
    vk.requires(out.shape[0] == a.shape[0] and out.shape[1] == a.shape[1])
    i, j = vk.tid()
    if i < a.shape[0] and j < a.shape[1]:
        out[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - 4.0 * a[i, j]
