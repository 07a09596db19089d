# expect: failed bounds
# ok_type_of_call_outer_zero with the zero's type taken from `wp.outer(x[i], x[i + 1])`: the value is unused, but Warp evaluates the operand of type(), so x[i + 1] is loaded, one past the end for the last thread (a type-only reading of the operand would prove it). Witness: dim=2, two positions: thread 1 reads x[2].
# bug: 20:62 bounds
# witness bounds: dim=2, block_dim=1, x=zeros(float32, (2, 3)), h=1.0, out=zeros(float32, (2, 3, 3))
import warp as wp


@wp.func
def hessian_like(x: wp.vec3, h: float):
    q = wp.length(x) / h
    if q > 1.0:
        return wp.outer(x, x) * 0.0
    return wp.outer(x, x) / (h * h)


@wp.kernel
def hessians(x: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=wp.mat33)):
    i = wp.tid()
    if i < out.shape[0] and i < x.shape[0]:
        out[i] = hessian_like(x[i], h) + type(wp.outer(x[i], x[i + 1]))(0.0)
