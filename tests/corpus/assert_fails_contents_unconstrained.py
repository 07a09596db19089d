# expect: failed assert
# Asserts every index is non-negative, but nothing constrains idx's contents. Witness: dim=1, idx=[-1], out.shape=(1,): thread 0 fails the assert.
import verikern as vk


@vk.kernel
def check_indices(idx: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
    vk.requires(out.shape[0] == idx.shape[0])
    i = vk.tid()
    if i < idx.shape[0]:
        v = idx[i]
        assert v >= 0, "negative index"
        out[i] = v
