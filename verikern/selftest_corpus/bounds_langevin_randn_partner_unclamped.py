# expect: failed bounds
# The random partner i + int(|z| * 2) of a normal draw (wp.randn) is not clamped: a draw of |z| >= 0.5 on the last thread reads past the end of x. Witness: dim=1, seed 1: thread 0 draws about -0.66, so j = 1 and x has 1 element.
# bug: 14:23 bounds
# witness bounds: dim=1, block_dim=1, seed=1, x=zeros(float32, 1), v=zeros(float32, 1)
import warp as wp


@wp.kernel
def kick_random_partner(seed: int, x: wp.array(dtype=wp.float32), v: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < x.shape[0] and i < v.shape[0]:
        state = wp.rand_init(seed, i)
        j = i + int(wp.abs(wp.randn(state)) * 2.0)
        v[i] = v[i] + x[j] * wp.randn(state)
