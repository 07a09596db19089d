"""Warp builtins beyond docs/LANGUAGE.md's core list, called as Warp code calls
them (keyword arguments included), for verikern's compatibility suite."""
import warp as wp

import verikern as vk


@vk.requires(lambda x, out: x.shape[0] == vk.launch_dim() and out.shape[0] == x.shape[0])
@wp.kernel
def scalar_builtins(x: wp.array[float], out: wp.array[float]):
    i = wp.tid()
    v = x[i]
    a = wp.lerp(v, 2.0, t=0.25)
    b = wp.mod(v, 0.75)
    c = wp.smoothstep(0.0, 1.0, v)
    d = wp.sign(v - 1.0)
    e = wp.clamp(v, low=0.5, high=2.5)
    k = wp.mod(i, wp.static(2 + 1))
    wp.expect_eq(k, i % 3)
    print(k)
    wp.printf("%d\n", i)
    r = wp.radians(v) + wp.degrees(v)
    if v < i:   # a mixed comparison: Warp converts the int to float, as C does
        r = r + 100.0
    out[i] = a + b + c + d + e + float(k) + r


@vk.requires(lambda ang, q, m, v: ang.shape[0] == vk.launch_dim())
@vk.requires(lambda ang, q, m, v: q.shape[0] == ang.shape[0] and m.shape[0] == ang.shape[0])
@vk.requires(lambda ang, v: v.shape[0] == ang.shape[0])
@wp.kernel
def vector_builtins(ang: wp.array[float], q: wp.array[wp.quat], m: wp.array[wp.mat33],
                    v: wp.array[wp.vec3]):
    i = wp.tid()
    t = ang[i]
    q[i] = wp.quat_rpy(t, 0.5 * t, yaw=0.25)
    m[i] = wp.identity(n=3, dtype=float) * t
    w = wp.lerp(wp.vec3(1.0, 2.0, 3.0), wp.vec3(-1.0, 0.0, 4.0), 0.5 * t)
    v[i] = wp.quat_rotate_inv(q[i], w)


@vk.requires(lambda f, n, u: f.shape[0] == vk.launch_dim() and n.shape[0] == vk.launch_dim())
@vk.requires(lambda f, u: u.shape[0] == f.shape[0])
@wp.kernel
def random_numbers(seed: int, f: wp.array[float], n: wp.array[int], u: wp.array[wp.uint32]):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    f[i] = wp.randf(state) + 10.0 * wp.randf(state, -1.0, 1.0)
    if wp.randf(state) < 0.5:
        n[i] = wp.randi(state, -5, 7)
    else:
        n[i] = wp.randi(state)
    other = wp.rand_init(seed)
    u[i] = wp.randu(other) + wp.randu(state)
