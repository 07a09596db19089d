# expect: failed bounds
# 3-point average stencil into a separate output, guarded only by i < n (no halo guard). Witness: dim=1, x.shape=out.shape=(1,): thread 0 reads x[-1] (and x[1]).
# bug: 14:19 bounds
# bug: 14:37 bounds
# witness bounds: dim=1, block_dim=1, x=zeros(float32, 1), out=zeros(float32, 1)
import verikern as vk


@vk.kernel
def stencil3_no_halo(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(x.shape[0] == out.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        out[i] = (x[i - 1] + x[i] + x[i + 1]) / 3.0
