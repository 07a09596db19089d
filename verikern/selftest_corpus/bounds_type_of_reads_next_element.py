# expect: failed bounds
# `type(x[i + 1])(0.5)` computes the address of x[i + 1] (Warp evaluates the operand of type() to an address and checks its index in its debug build), and the guard covers only x[i]: the last thread's index is one past the end. Witness: dim=2, x of 2 elements: thread 1 passes the guard and type() takes the address of x[2].
# bug: 13:27 bounds
# witness bounds: dim=2, block_dim=1, x=zeros(float64, 2), out=zeros(float64, 2)
import warp as wp


@wp.kernel
def halve_by_next(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    if i < x.shape[0] and i < out.shape[0]:
        v = x[i]
        out[i] = v * type(x[i + 1])(0.5)
