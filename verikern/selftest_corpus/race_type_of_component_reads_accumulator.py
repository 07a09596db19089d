# expect: failed race
# Every thread adds its momentum into p[0] with an atomic, converted with `type(p[0][0])`: Warp loads the vector p[0] to take its component's type, a plain read that races with the other threads' atomic adds. Witness: dim=2, shapes (2,), p.shape=(1,): thread 0 reads p[0] while thread 1 adds into it.
# bug: 12:41 race 12:9
# witness race: dim=2, block_dim=2, v=zeros(float32, (2, 3)), m=zeros(float32, 2), p=zeros(float32, (1, 3))
import warp as wp


@wp.kernel
def momentum_sum(v: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.float32), p: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    if i < v.shape[0] and i < m.shape[0] and p.shape[0] > 0:
        wp.atomic_add(p, 0, v[i] * type(p[0][0])(m[i]))
