# expect: proved
# `type(wp.outer(x, x))(0.0)` in a func (warpSPHCore's kernels/hessian.py): Warp evaluates the operand of type() like any expression and takes its static type, mat33 here; verikern evaluates it in place too (its value unused), so the zero Hessian beyond the support is a mat33 and every access is in bounds under the guards.
import warp as wp


@wp.func
def hessian_like(x: wp.vec3, h: float):
    q = wp.length(x) / h
    if q > 1.0:
        return type(wp.outer(x, x))(0.0)
    return wp.outer(x, x) / (h * h)


@wp.kernel
def hessians(x: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=wp.mat33)):
    i = wp.tid()
    if i < out.shape[0] and i < x.shape[0]:
        out[i] = hessian_like(x[i], h)
