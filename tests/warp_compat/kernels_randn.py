"""Kernels drawing Warp's normal random numbers (`wp.randn`), in the shapes of
a Langevin thermostat: a state per thread, several draws in one statement,
draws converted to the precision of another value, a uniform draw after them."""
import warp as wp

import verikern as vk


@vk.requires(lambda out, tail: out.shape[0] == vk.launch_dim() and tail.shape[0] == vk.launch_dim())
@wp.kernel
def normals(seed: int, out: wp.array(dtype=float), tail: wp.array(dtype=float)):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    out[i] = wp.randn(state)
    tail[i] = wp.randf(state)     # the state advanced by both of randn's draws


@vk.requires(lambda vel, kt: vel.shape[0] == vk.launch_dim() and kt.shape[0] == vk.launch_dim())
@wp.kernel
def thermal_kick(seed: int, kt: wp.array(dtype=wp.float64), vel: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    sigma = wp.sqrt(kt[i])
    noise = wp.vec3d(type(sigma)(wp.randn(state)), type(sigma)(wp.randn(state)),
                     type(sigma)(wp.randn(state)))
    vel[i] = vel[i] + sigma * noise
