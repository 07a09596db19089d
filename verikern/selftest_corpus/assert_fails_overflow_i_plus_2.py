# expect: failed assert
# Asserts i + 2 > i, which int32 wrap-around breaks for the last threads of a huge launch. Witness: dim=2**31 - 1, thread i=2**31 - 2: i + 2 wraps to -2**31.
# bug: 11:5 assert
# witness: none (the bug needs a launch of 2**31 - 1 threads)
import verikern as vk


@vk.kernel
def skip_index(out: vk.array(dtype=vk.int32)):
    i = vk.tid()
    assert i + 2 > i
    if i < out.shape[0]:
        out[i] = i
