# expect: failed bounds
# Reads the previous element through a uint32 index i - 1, which underflows for thread 0. Witness: dim=1, x.shape=out.shape=(1,): thread 0 reads x[4294967295].
# bug: 14:18 bounds
# witness bounds: dim=1, block_dim=1, x=zeros(float32, 1), out=zeros(float32, 1)
import verikern as vk


@vk.kernel
def previous_element(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        j = vk.uint32(i) - vk.uint32(1)
        out[i] = x[j]
