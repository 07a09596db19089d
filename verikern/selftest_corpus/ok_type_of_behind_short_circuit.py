# expect: proved
# `type(x[i])` on the right of `or` and in a branch of a conditional expression: Warp evaluates an operand there only when the left side or the test lets it (it short-circuits), so the address of x[i] is computed, and its index checked, only for threads with i < x.shape[0]: every access is in bounds.
import warp as wp


@wp.kernel
def mark_positive(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    if i < out.shape[0]:
        past = i >= x.shape[0]
        keep = past or type(x[i])(2.0) > out[i]
        out[i] = type(x[i])(1.0) if not past and keep else 0.0
