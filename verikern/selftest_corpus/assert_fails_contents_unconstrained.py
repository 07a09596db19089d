# expect: failed assert
# Asserts every index is non-negative, but nothing constrains idx's contents. Witness: dim=1, idx=[-1], out.shape=(1,): thread 0 fails the assert.
# bug: 14:9 assert
# witness assert: dim=1, block_dim=1, idx=array(int32, [-1]), out=zeros(int32, 1)
import verikern as vk


@vk.kernel
def check_indices(idx: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
    vk.requires(out.shape[0] == idx.shape[0])
    i = vk.tid()
    if i < idx.shape[0]:
        v = idx[i]
        assert v >= 0, "negative index"
        out[i] = v
