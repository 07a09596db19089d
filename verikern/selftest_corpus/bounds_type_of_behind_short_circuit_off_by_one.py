# expect: failed bounds
# The guard on the left of `or` is off by one (`>` for `>=`): a thread with i == x.shape[0] evaluates the right side, and `type(x[i])` computes the address of x[i], one past the end (Warp checks that index in its debug build). Witness: dim=3, x of 2 elements, out of 3: thread 2 takes the address of x[2].
# bug: 12:39 bounds
# witness bounds: dim=3, block_dim=1, x=zeros(float64, 2), out=zeros(float64, 3)
import warp as wp


@wp.kernel
def mark_positive(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    if i < out.shape[0]:
        keep = i > x.shape[0] or type(x[i])(2.0) > out[i]
        out[i] = 1.0 if keep else 0.0
