# expect: failed bounds
# Gathers through idx, but the contract's upper bound is len(x) + 1 (off by one). Witness: dim=1, idx=[1], x.shape=(1,), out.shape=(1,): thread 0 reads x[1].
# bug: 13:18 bounds
# witness bounds: dim=1, block_dim=1, x=zeros(float32, 1), idx=array(int32, [1]), out=zeros(float32, 1)
import verikern as vk


@vk.kernel
def gather_off_by_one(x: vk.array(dtype=vk.float32), idx: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.float32)):
    vk.requires(vk.all_in_range(idx, 0, x.shape[0] + 1))
    i = vk.tid()
    if i < idx.shape[0] and i < out.shape[0]:
        out[i] = x[idx[i]]
