# expect: failed bounds
# The stencil of ok_numpy_pi_stencil_width with the guard int(np.pi) - 1 <= a.shape[0] - i, one short: it covers a[i + 1] but not a[i + 2]. Witness: dim=1, a.shape=(2,): thread 0 reads a[2].
# bug: 14:41 bounds
# witness bounds: dim=1, block_dim=1, a=zeros(float32, 2), out=zeros(float32, 1)
import numpy as np
import verikern as vk


@vk.kernel
def smooth_pi_wide(a: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < out.shape[0]:
        if i < a.shape[0] and int(np.pi) - 1 <= a.shape[0] - i:
            out[i] = (a[i] + a[i + 1] + a[i + 2]) / float(np.pi)
        else:
            out[i] = float(np.nan)
