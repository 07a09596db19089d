# expect: proved
# Shrunk from the generated campaign (seed 6006): out[i] = 0 > a + a for an int32 a read from x. verikern wraps a + a (a = 2**30 gives -2**31, so the result is True); Warp's C++ treats that signed overflow as undefined and clang folds the test to a < 0 (docs/SOUNDNESS.md, "Known gap"). Every access is in bounds either way.
import verikern as vk


@vk.kernel
def doubled_is_negative(x: vk.array(dtype=vk.int32, ndim=2), out: vk.array(dtype=vk.bool)):
    vk.requires(x.shape[0] >= 1 and x.shape[1] >= 1)
    i = vk.tid()
    if i < out.shape[0]:
        a = x[0, (i & 2147483647) % x.shape[1]]
        out[i] = vk.int32(0) > (a + a)
