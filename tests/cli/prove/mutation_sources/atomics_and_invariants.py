"""Correct kernels with every kind of atomic and a loop invariant hint
(mutation source)."""
import verikern as vk


@vk.kernel
def extremes(x: vk.array(dtype=vk.int32), stats: vk.array(dtype=vk.int32)):
    vk.requires(stats.shape[0] >= 4)
    i = vk.tid()
    if i < x.shape[0]:
        vk.atomic_min(stats, 0, x[i])
        vk.atomic_max(stats, 1, x[i])
        old = vk.atomic_cas(stats, 2, 0, i)
        vk.atomic_exch(stats, 3, old)


@vk.kernel
def row_sums(x: vk.array(dtype=vk.float32, ndim=2), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == x.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        acc = 0.0
        k = 0
        while k < x.shape[1]:
            vk.invariant(k >= 0 and k < x.shape[1])
            acc = acc + x[i, k]
            k += 1
        out[i] = acc
