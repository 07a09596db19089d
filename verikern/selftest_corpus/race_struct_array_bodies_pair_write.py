# expect: failed race
# Two threads per @wp.struct body: each adds its half of the force to the body's velocity with a plain read-modify-write of the struct field, so threads 2k and 2k+1 race on bodies[k].v. Witness: two threads, one body.
# bug: 20:9 race 20:28
# witness race: dim=2, block_dim=2, bodies__x=zeros(float32, 1), bodies__v=zeros(float32, 1), bodies__inv_m=array(float32, [1.0]), forces=array(float32, [1.0, 2.0]), dt=1.0
import warp as wp


@wp.struct
class Body:
    x: wp.float32
    v: wp.float32
    inv_m: wp.float32


@wp.kernel
def split_force(bodies: wp.array(dtype=Body), forces: wp.array(dtype=wp.float32), dt: wp.float32):
    wp.requires(forces.shape[0] == 2 * bodies.shape[0])
    i = wp.tid()
    if i < forces.shape[0]:
        bodies[i // 2].v = bodies[i // 2].v + forces[i] * bodies[i // 2].inv_m * dt
