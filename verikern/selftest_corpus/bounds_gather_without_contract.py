# expect: failed bounds
# Gathers out[i] = x[idx[i]] with no contract on idx. Witness: dim=1, idx=[-1], x.shape=(1,), out.shape=(1,): thread 0 reads x[-1].
# bug: 12:18 bounds
# witness bounds: dim=1, block_dim=1, x=zeros(float32, 1), idx=array(int32, [-1]), out=zeros(float32, 1)
import verikern as vk


@vk.kernel
def gather_unchecked(x: vk.array(dtype=vk.float32), idx: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < idx.shape[0] and i < out.shape[0]:
        out[i] = x[idx[i]]
