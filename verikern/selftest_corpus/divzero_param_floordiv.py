# expect: failed div-zero
# Integer-divides every element by a parameter k that may be zero. Witness: dim=1, x.shape=out.shape=(1,), k=0: thread 0 computes x[0] // 0.
# bug: 13:18 div-zero
# witness div-zero: dim=1, block_dim=1, x=zeros(int32, 1), out=zeros(int32, 1), k=0
import verikern as vk


@vk.kernel
def divide_by_param(x: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32), k: vk.int32):
    vk.requires(out.shape[0] == x.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        out[i] = x[i] // k
