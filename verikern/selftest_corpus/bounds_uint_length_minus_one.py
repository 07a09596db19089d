# expect: failed bounds
# Broadcasts the last element of x using last = uint32(len(x)) - 1, which underflows for an empty x. Witness: dim=1, x.shape=(0,), out.shape=(1,): thread 0 reads x[4294967295].
# bug: 13:18 bounds
# witness bounds: dim=1, block_dim=1, x=zeros(float32, 0), out=zeros(float32, 1)
import verikern as vk


@vk.kernel
def broadcast_last(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    last = vk.uint32(x.shape[0]) - vk.uint32(1)
    i = vk.tid()
    if i < out.shape[0]:
        out[i] = x[last]
