# expect: proved
# Integrates an array of @wp.struct bodies (position, velocity, inverse mass): each thread updates its own element, field by field and as a whole struct.
import warp as wp


@wp.struct
class Body:
    x: wp.float32
    v: wp.float32
    inv_m: wp.float32


@wp.kernel
def integrate_bodies(bodies: wp.array(dtype=Body), forces: wp.array(dtype=wp.float32), dt: wp.float32):
    wp.requires(forces.shape[0] == bodies.shape[0])
    i = wp.tid()
    if i < bodies.shape[0]:
        b = bodies[i]
        b.v = b.v + forces[i] * b.inv_m * dt
        b.x = b.x + b.v * dt
        bodies[i] = b
