# expect: failed bounds
# Copies x into out but checks i only against x's length. Witness: dim=2, x.shape=(2,), out.shape=(1,): thread 1 writes out[1].
# bug: 12:9 bounds
# witness bounds: dim=2, block_dim=2, x=zeros(float32, 2), out=zeros(float32, 1)
import verikern as vk


@vk.kernel
def copy_wrong_guard(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < x.shape[0]:
        out[i] = x[i]
