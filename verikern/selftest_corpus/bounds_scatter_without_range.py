# expect: failed bounds
# Scatters x through an index array known distinct but not range-checked. Witness: dim=1, perm=[5], x.shape=(1,), out.shape=(1,): thread 0 writes out[5].
# bug: 13:9 bounds
# witness bounds: dim=1, block_dim=1, x=zeros(float32, 1), perm=array(int32, [5]), out=zeros(float32, 1)
import verikern as vk


@vk.kernel
def scatter_unchecked(x: vk.array(dtype=vk.float32), perm: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.float32)):
    vk.requires(vk.all_distinct(perm))
    i = vk.tid()
    if i < perm.shape[0] and i < x.shape[0]:
        out[perm[i]] = x[i]
