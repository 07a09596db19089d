# expect: failed div-zero
# Integer-divides every element by a parameter k that the requires keeps non-zero, but k = -1 with x[i] = INT_MIN overflows int32: x86's idiv traps (Warp's CPU run dies of SIGFPE) and C++ leaves it undefined. Witness: dim=1, x=[INT_MIN], k=-1: thread 0 computes INT_MIN // -1. (Until session 14 this case was ok_floordiv_param_requires_nonzero, proved: INT_MIN // -1 was taken to wrap.)
# bug: 14:18 div-zero
# witness div-zero: dim=1, block_dim=1, x=array(int32, [-2147483648]), out=zeros(int32, 1), k=-1
import verikern as vk


@vk.kernel
def divide_by_nonzero_param(x: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32), k: vk.int32):
    vk.requires(k != 0)
    vk.requires(out.shape[0] == x.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        out[i] = x[i] // k
