# expect: failed assert
# A @vk.func halves its argument and asserts it is even; the kernel passes the thread id. Witness: dim=2, out.shape=(2,): thread 1 calls half_even(1).
# bug: 10:5 assert
# witness assert: dim=2, block_dim=2, out=zeros(int32, 2)
import verikern as vk


@vk.func
def half_even(v: vk.int32) -> vk.int32:
    assert v % 2 == 0, "odd value"
    return v // 2


@vk.kernel
def halve_ids(out: vk.array(dtype=vk.int32)):
    i = vk.tid()
    if i < out.shape[0]:
        out[i] = half_even(i)
