# expect: failed bounds
# Backward difference out[i] = x[i] - x[i-1], guarded only by i < x.shape[0]. Witness: dim=1, x.shape=out.shape=(1,): thread 0 reads x[-1] (negative indices are out of bounds).
# bug: 13:25 bounds
# witness bounds: dim=1, block_dim=1, x=zeros(float32, 1), out=zeros(float32, 1)
import verikern as vk


@vk.kernel
def backward_difference(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(x.shape[0] == out.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        out[i] = x[i] - x[i - 1]
