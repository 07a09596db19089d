"""The `@` operator as Warp 1.19 takes it: its builtin `mul`, the one of `*`
(matrix times vector, vector times matrix, matrix times matrix of any shape
and precision, quat times quat, and a scalar on either side), `@=` included.
Written for verikern's compatibility suite: valid Warp and valid verikern."""
import warp as wp

import verikern as vk

mat23 = wp.types.matrix(shape=(2, 3), dtype=wp.float32)


@vk.requires(lambda a, v, q, d, n, out_v, out_m, out_q, out_d, out_n, out_2:
             a.shape[0] == vk.launch_dim() and v.shape[0] == a.shape[0] and q.shape[0] == a.shape[0]
             and d.shape[0] == a.shape[0] and n.shape[0] == a.shape[0] and out_v.shape[0] == a.shape[0]
             and out_m.shape[0] == a.shape[0] and out_q.shape[0] == a.shape[0]
             and out_d.shape[0] == a.shape[0] and out_n.shape[0] == a.shape[0]
             and out_2.shape[0] == a.shape[0])
@wp.kernel
def matmul_ops(a: wp.array(dtype=wp.mat33), v: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.quat),
               d: wp.array(dtype=wp.mat22d), n: wp.array(dtype=int),
               out_v: wp.array(dtype=wp.vec3), out_m: wp.array(dtype=wp.mat33), out_q: wp.array(dtype=wp.quat),
               out_d: wp.array(dtype=wp.mat22d), out_n: wp.array(dtype=int), out_2: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    m = a[i]
    x = v[i]
    y = m @ x + x @ m          # matrix times column, row times matrix
    y @= m
    out_v[i] = y
    p = m @ m
    p @= m
    out_m[i] = p @ 0.5 + 2.0 @ m
    out_q[i] = q[i] @ q[i]
    out_d[i] = d[i] @ d[i]
    out_n[i] = n[i] @ 3
    r = mat23(1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
    out_2[i] = r @ x
