# expect: proved
# Each thread draws Warp's normal random numbers (wp.randn: two PCG steps, Box-Muller in float32) for a Langevin kick and picks a random partner i + int(|z| * 2) clamped to the array, so every access is in bounds whatever the draws are.
import warp as wp


@wp.kernel
def kick_random_partner(seed: int, x: wp.array(dtype=wp.float32), v: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    if i < x.shape[0] and i < v.shape[0]:
        state = wp.rand_init(seed, i)
        j = wp.clamp(i + int(wp.abs(wp.randn(state)) * 2.0), 0, x.shape[0] - 1)
        kick = wp.vec3(wp.randn(state), wp.randn(state), wp.randn(state))
        v[i] = v[i] + x[j] * kick
