# expect: failed bounds
# Scales a 2-D array but the guard compares i with shape[1] and j with shape[0]. Witness: dim=(2, 1), a.shape=(1, 2): thread (1, 0) writes a[1, 0].
# bug: 13:9 bounds
# bug: 13:23 bounds
# witness bounds: dim=(2, 1), block_dim=2, a=zeros(float32, (1, 2)), s=2.0
import verikern as vk


@vk.kernel
def scale_2d_swapped(a: vk.array(dtype=vk.float32, ndim=2), s: vk.float32):
    i, j = vk.tid()
    if i < a.shape[1] and j < a.shape[0]:
        a[i, j] = s * a[i, j]
