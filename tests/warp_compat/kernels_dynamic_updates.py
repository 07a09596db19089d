"""Updates of a local vector or matrix at a run-time index, as warpsphcore's
math/wp_matmul.py and math/wp_eye.py write them: `res[i] += mat[i, j] *
vec[j]` in loops (`res = type(vec)(0.0)`), `m[i][j] = ...` on a zero matrix
made by `wp.matrix(shape=..., dtype=...)`, and `m[i] *= s` of a row
(tests/warp_compat/test_warp_dynamic_updates.py against warp-lang,
tests/frontend/test_fe_dynamic_updates.py by hand with numpy)."""
import warp as wp


@wp.func
def matvec(mat: wp.mat33, vec: wp.vec3):
    res = type(vec)(wp.float32(0.0))
    for i in range(3):
        for j in range(3):
            res[i] += mat[i, j] * vec[j]
    return res


@wp.func
def scaled_eye(s: wp.float32):
    m = wp.matrix(shape=(3, 3), dtype=wp.float32)
    for i in range(3):
        for j in range(3):
            m[i][j] = s if i == j else wp.float32(0.0)
    return m


@wp.kernel
def updates(m: wp.array(dtype=wp.mat33), v: wp.array(dtype=wp.vec3), k: wp.array(dtype=wp.int32),
            out: wp.array(dtype=wp.vec3), eye: wp.array(dtype=wp.mat33), rows: wp.array(dtype=wp.mat33)):
    i = wp.tid()
    out[i] = matvec(m[i], v[i])
    eye[i] = scaled_eye(wp.float32(i + 1))
    r = m[i]
    r[k[i]] *= wp.float32(2.0)          # one row doubled, the row chosen at run time
    r[k[i], 2 - k[i]] -= wp.float32(1.0)
    rows[i] = r
