# expect: failed race
# Scatters x through an index array that is range-checked but may repeat. Witness: dim=2, perm=[0, 0], x.shape=(2,), out.shape=(1,): threads 0 and 1 both write out[0].
# bug: 13:9 race 13:9
# witness race: dim=2, block_dim=2, x=zeros(float32, 2), perm=zeros(int32, 2), out=zeros(float32, 1)
import verikern as vk


@vk.kernel
def scatter_maybe_repeated(x: vk.array(dtype=vk.float32), perm: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.float32)):
    vk.requires(vk.all_in_range(perm, 0, out.shape[0]))
    i = vk.tid()
    if i < perm.shape[0] and i < x.shape[0]:
        out[perm[i]] = x[i]
