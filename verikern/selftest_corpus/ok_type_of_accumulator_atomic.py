# expect: proved
# Every thread adds its kinetic energy into ke2[0] with an atomic, converted with `type(ke2[0])` (nvalchemi's Nose-Hoover shape). Warp computes ke2[0]'s address there and reads nothing, so no read races with the atomics; ke2[0]'s index is still checked.
import warp as wp


@wp.kernel
def kinetic_energy_sum(v: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.float32), ke2: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < v.shape[0] and i < m.shape[0] and ke2.shape[0] > 0:
        vv = v[i]
        wp.atomic_add(ke2, 0, type(ke2[0])(m[i] * wp.dot(vv, vv)))
