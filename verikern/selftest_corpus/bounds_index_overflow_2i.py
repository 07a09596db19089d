# expect: failed bounds
# Zeroes the even elements; the guard 2*i < n wraps in int32. Witness: dim=2**30 + 1, x.shape=(8,): thread i=2**30 computes 2*i = -2**31, passes the guard and writes x[-2147483648].
# bug: 12:9 bounds
# witness: none (the bug needs a launch of 2**30 + 1 threads)
import verikern as vk


@vk.kernel
def zero_even_overflow(x: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if 2 * i < x.shape[0]:
        x[2 * i] = 0.0
