"""Kernels for tests/testing (written for these tests): a correct one, one
with tight contracts, a racy one, one reading uninitialised shared memory,
one with a wrong result against its numpy reference, and one per element
type for the edge values."""
import verikern as vk

NBINS = 7


@vk.kernel
def scale(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32), a: vk.float32):
    vk.requires(y.shape[0] == x.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        y[i] = x[i] * a


@vk.kernel
def tight(idx: vk.array(dtype=vk.int32), perm: vk.array(dtype=vk.int32),
          hist: vk.array(dtype=vk.int32), m: vk.array(dtype=vk.float32, ndim=2), n: vk.int32):
    vk.requires(vk.block_dim() >= 64)
    vk.requires(vk.block_dim() & (vk.block_dim() - 1) == 0)
    vk.requires(vk.launch_dim(1) % 4 == 0)
    vk.requires(n == idx.shape[0] * 3 + 1)
    vk.requires(hist.shape[0] == NBINS)
    vk.requires(m.shape[0] == vk.launch_dim(0) and m.shape[1] == vk.launch_dim(1))
    vk.requires(vk.all_in_range(idx, 5, 5 + NBINS))
    vk.requires(vk.all_distinct(perm))
    i, j = vk.tid()
    k = i * vk.launch_dim(1) + j
    if k < idx.shape[0]:
        vk.atomic_add(hist, idx[k] - 5, 1)
    m[i, j] = m[i, j] * 2.0


@vk.kernel
def racy_sum(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(out.shape[0] == 1)
    i = vk.tid()
    if i < x.shape[0]:
        out[0] = out[0] + x[i]


@vk.kernel
def uninit_shared(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(vk.block_dim() <= 256)
    buf = vk.shared.array(shape=(256,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    if t % 2 == 0 and i < x.shape[0]:
        buf[t] = x[i]
    vk.sync_threads()
    if i < out.shape[0]:
        out[i] = buf[t]


@vk.kernel
def relu_buggy(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32)):
    vk.requires(y.shape[0] == x.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        v = x[i]
        if v > 0.5:      # bug: should be v > 0.0
            y[i] = v
        else:
            y[i] = 0.0


@vk.kernel
def copy_all(f: vk.array(dtype=vk.float32), g: vk.array(dtype=vk.float32),
             s: vk.array(dtype=vk.int32), u: vk.array(dtype=vk.uint8),
             b: vk.array(dtype=vk.bool), c: vk.float32, k: vk.int32):
    i = vk.tid()
    if i < f.shape[0] and i < g.shape[0]:
        g[i] = f[i] * c
    if i < s.shape[0] and i < u.shape[0] and i < b.shape[0]:
        if b[i]:
            s[i] = s[i] + vk.int32(u[i]) + k


@vk.kernel
def root_precise(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32)):
    vk.requires(y.shape[0] == x.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        y[i] = vk.sqrt_precise(x[i])     # verikern only: Warp has no sqrt_precise
