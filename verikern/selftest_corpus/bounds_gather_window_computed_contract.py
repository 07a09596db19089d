# expect: failed bounds
# Gathers x[idx[i] + 1] where idx's contract is all_in_range(idx, n - 4, n) and x has n elements: idx[i] = n - 1 reads x[n]. The contract's lower bound is computed (n - 4), and replay fills idx's free elements to satisfy it. Witness: dim=1, n=4, idx=[3], x.shape=(4,): thread 0 reads x[4].
# bug: 14:18 bounds
# witness bounds: dim=1, block_dim=1, idx=array(int32, [3]), x=zeros(float32, 4), out=zeros(float32, 1), n=4
import verikern as vk


@vk.kernel
def gather_window(idx: vk.array(dtype=vk.int32), x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), n: int):
    vk.requires(vk.all_in_range(idx, n - 4, n))
    vk.requires(x.shape[0] == n)
    i = vk.tid()
    if i < out.shape[0] and i < idx.shape[0]:
        out[i] = x[idx[i] + 1]
