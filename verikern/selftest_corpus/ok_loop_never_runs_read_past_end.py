# expect: proved
# Shrunk from the generated campaign (seed 5357): a read one past the end of x sits in `for q in range(0)`, a loop that never runs, so no thread ever makes it; `proved` is right, and a prover that failed it would report a bug that cannot happen.
import verikern as vk


@vk.kernel
def dead_loop_read(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32, ndim=2)):
    vk.requires(x.shape[0] >= 1)
    i0, i1 = vk.tid()
    acc = vk.float32(0.5)
    for q in range(0):
        e = x[((i0 & 2147483647) % x.shape[0]) + 1]
        acc = acc + e
    if i0 < out.shape[0] and i1 < out.shape[1]:
        out[i0, i1] = acc
