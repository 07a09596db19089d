"""Operators and constants Warp's own tests use, written for verikern's
compatibility suite: `==`/`!=` on vectors and matrices, a scalar divided by
a vector/matrix/quat, row vector times matrix, Warp's named constants."""
import math

import warp as wp

import verikern as vk


@vk.requires(lambda v, w, m, flags: v.shape[0] == vk.launch_dim() and w.shape[0] == v.shape[0])
@vk.requires(lambda v, m, flags: m.shape[0] == v.shape[0] and flags.shape[0] == v.shape[0])
@wp.kernel
def equality(v: wp.array[wp.vec3], w: wp.array[wp.vec3], m: wp.array[wp.mat22],
             flags: wp.array[int]):
    i = wp.tid()
    wp.expect_eq(v[i], w[i])
    wp.expect_neq(v[i], wp.vec3(0.0, 1.0, 2.0))
    wp.expect_eq(m[i], wp.mat22(1.0, 2.0, 3.0, 4.0))
    flags[i] = 1


@vk.requires(lambda v, m, q, a, b, c, d: v.shape[0] == vk.launch_dim() and m.shape[0] == v.shape[0])
@vk.requires(lambda v, q, a, b, c, d: q.shape[0] == v.shape[0] and a.shape[0] == v.shape[0])
@vk.requires(lambda v, b, c, d: b.shape[0] == v.shape[0] and c.shape[0] == v.shape[0])
@vk.requires(lambda v, d: d.shape[0] == v.shape[0])
@wp.kernel
def products(v: wp.array[wp.vec3], m: wp.array[wp.mat33], q: wp.array[wp.quat],
             a: wp.array[wp.vec3], b: wp.array[wp.mat33], c: wp.array[wp.quat],
             d: wp.array[wp.vec3]):
    i = wp.tid()
    a[i] = 2.0 / v[i]
    b[i] = wp.PI / m[i]
    c[i] = wp.HALF_PI / q[i]
    d[i] = v[i] * m[i] + wp.vec3(wp.TAU, wp.E, wp.LOG2E)


LENGTH = wp.constant(5)


@vk.requires(lambda out, v, m, q: out.shape[0] >= 1 and v.shape[0] >= 1 and m.shape[0] >= 1)
@vk.requires(lambda q: q.shape[0] >= 1 and vk.launch_dim() == 1)
@wp.kernel
def constructors(out: wp.array[float], v: wp.array[wp.vec3], m: wp.array[wp.mat22],
                 q: wp.array[wp.quat]):
    ones = wp.types.vector(1.0, length=2, dtype=wp.float16)
    zeros = wp.types.vector(length=2, dtype=wp.float64)
    custom = wp.types.vector(0.5, 1.5, dtype=wp.float16)
    long = wp.types.vector(length=LENGTH, dtype=float)
    long[3] = 2.0
    same = wp.types.vector(long)
    out[0] = float(ones[0] + custom[1]) + same[3] + float(zeros[1])
    v[0] = wp.types.vector(1.0, 2.0, 3.0, dtype=float)
    m[0] = wp.types.matrix(0.0, 1.0, 2.0, 3.0, shape=(2, 2), dtype=float) \
        + wp.types.matrix(shape=(2, 2), dtype=float)
    q[0] = wp.types.quaternion(1.0, 2.0, 3.0, 4.0, dtype=float)


@vk.requires(lambda y, x, m, r: y.shape[0] == vk.launch_dim() and x.shape[0] == y.shape[0])
@vk.requires(lambda y, m, r: m.shape[0] == y.shape[0] and r.shape[0] == y.shape[0])
@vk.requires(lambda y, acc, macc, rows: acc.shape[0] >= 1 and macc.shape[0] >= 1)
@vk.requires(lambda y, rows: rows.shape[0] == y.shape[0])
@wp.kernel(enable_backward=False)
def element_parts(y: wp.array[wp.vec3], x: wp.array[float], m: wp.array[wp.mat33],
                  r: wp.array[wp.vec3], acc: wp.array[wp.vec3], macc: wp.array[wp.mat22],
                  rows: wp.array[wp.vec2]):
    tid = wp.tid()
    y[tid].x = x[tid] * 2.0
    y[tid][2] = x[tid] * 4.0
    m[tid][1, 2] = x[tid]
    m[tid][0] = r[tid]
    m[tid][2] *= 2.0
    acc[0].y += x[tid]
    acc[0][2] -= 1.0
    macc[0][1] += rows[tid]


@vk.requires(lambda idx, out, vo, mo: idx.shape[0] == vk.launch_dim())
@vk.requires(lambda idx, out, vo, mo: out.shape[0] == idx.shape[0] and vo.shape[0] == idx.shape[0])
@vk.requires(lambda idx, mo: mo.shape[0] == idx.shape[0])
@vk.requires(lambda idx: vk.all_in_range(idx, 0, 3))
@wp.kernel
def run_time_components(idx: wp.array[int], out: wp.array[float], vo: wp.array[wp.vec3],
                        mo: wp.array[wp.mat22]):
    t = wp.tid()
    j = idx[t]
    v = wp.vec3(1.0, 2.0, 3.0)
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    s = 0.0
    for i in range(3):
        s += v[i] * float(i + 1)
    r = m[j % 2]
    out[t] = s + v[j] + m[j % 2, 1] + m[1][j % 2] + r[0]
    v[j] = 10.0
    m[j % 2, (j + 1) % 2] = -1.0
    vo[t] = v
    mo[t] = m


@vk.requires(lambda gates, out: gates.shape[0] >= 1 and out.shape[0] >= 2)
@vk.requires(lambda gates: vk.launch_dim() == 1)
@wp.kernel
def loop_variable_after(gates: wp.array[int], out: wp.array[int]):
    s = int(0)
    for i in range(2):
        s = s + i
    n = int(0)
    while n < 3:
        i = i + 1
        n = n + 1
    out[0] = i
    for j in range(10, 1, -3):
        if gates[0] != 0:
            continue
        s += 1
    out[1] = j + s


def make_static(v: float):
    @vk.requires(lambda a, q, x: a.shape[0] == vk.launch_dim() and x.shape[0] >= 4)
    @wp.kernel
    def static_values(a: wp.array[wp.float32], q: wp.quat, x: wp.array[float]):
        tid = wp.tid()
        s = float(0.0)
        for i in range(4):
            if wp.static(i % 2 == 0):
                continue
            s += wp.static(float(i) + wp.static(1.0 + 1.0)) + x[i]
        a[tid] = s + wp.static(v * 2.0) + float(wp.static(len(q))) + float(wp.static(1 + wp.static(2)))

    return static_values


static_values_15 = make_static(1.5)


@vk.requires(lambda n, out: out.shape[0] >= 1 and vk.launch_dim() == 1 and n < 100)
@wp.kernel
def int_conditions(n: int, out: wp.array[float]):
    b = 2.0 if 123 else -2.0
    c = 4.0 if 0 else (5.0 if 0 else 7.0)
    x = 0
    if not 123:
        x = 123
    if n:
        x = x + 10
    if not n:
        x = x + 100
    out[0] = b + c + float(x)


@vk.requires(lambda out, o2, h, d: out.shape[0] >= 2 and o2.shape[0] >= 1 and h.shape[0] >= 2)
@vk.requires(lambda d: d.shape[0] >= 1 and vk.launch_dim() == 1)
@wp.kernel
def matrices_from_vectors(out: wp.array[wp.mat33], o2: wp.array[wp.mat22],
                          h: wp.array[wp.vec2h], d: wp.array[wp.mat22d]):
    out[0] = wp.matrix_from_cols(wp.vec3(1.0, 2.0, 3.0), wp.vec3(4.0, 5.0, 6.0),
                                 wp.vec3(7.0, 8.0, 9.0))
    out[1] = wp.matrix_from_rows(wp.vec3(1.0, 2.0, 3.0), wp.vec3(4.0, 5.0, 6.0),
                                 wp.vec3(7.0, 8.0, 9.0))
    a = wp.vec2(1.5, 2.25)
    h[0] = wp.vec2h(a)
    h[1] = wp.types.vector(a, dtype=wp.float16)
    d[0] = wp.mat22d(wp.mat22(1.0, 2.0, 3.0, 4.0))
    o2[0] = wp.matrix_from_cols(a, a)


def make_repeat(v, n=3):
    @vk.requires(lambda a: a.shape[0] == vk.launch_dim())
    @wp.kernel
    def repeat(a: wp.array[wp.float32]):
        tid = wp.tid()
        s = float(0.0)
        for _i in range(n):
            s += v
        a[tid] = wp.static(v * 2.0) + s

    return repeat


repeat_1_3, repeat_25_4 = make_repeat(1.0), make_repeat(2.5, n=4)


@vk.requires(lambda x, out: x.shape[0] >= 2 and out.shape[0] >= 2 and vk.launch_dim() == 1)
@wp.kernel
def near_trace_nan(x: wp.array[float], out: wp.array[int]):
    wp.expect_near(1.0, 1.0 + 1e-06)
    wp.expect_near(x[0], 1.1, 0.5)
    wp.expect_near(wp.vec2(1.0, 2.0), wp.vec2(1.0, 2.0000001), tolerance=1e-3)
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    out[0] = int(wp.trace(m))
    y = x[1]
    if wp.isnan(y):
        out[1] = 1
    if wp.isinf(y):
        out[1] = 2
    if wp.isfinite(y):
        out[1] = 3


@vk.requires(lambda x, y, z: x.shape[0] == vk.launch_dim() and y.shape[0] == x.shape[0])
@vk.requires(lambda x, z: z.shape[0] == x.shape[0])
@wp.kernel
def matrix_rows(x: wp.array[wp.vec2], y: wp.array[wp.mat22], z: wp.array[wp.mat33]):
    i = wp.tid()
    a = wp.mat22()
    a[0] = 1.0 * x[i]
    a[1] = 2.0 * x[i]
    y[i] = a
    m = wp.mat33()
    m[0, 0] = 1.0
    m[0][1] = 2.0
    m[2][2] = 3.0
    z[i] = m


@vk.requires(lambda out_count, out_values: out_count.shape[0] >= 1 and vk.launch_dim() == 1)
@vk.requires(lambda start, end, step, out_values: out_values.shape[0] >= 64)
@vk.requires(lambda start, end, step: -20 <= start and start <= 20 and -20 <= end and end <= 20)
@vk.requires(lambda step: -8 <= step and step <= 8)
@wp.kernel
def reversed_ranges(start: wp.int32, end: wp.int32, step: wp.int32,
                    out_count: wp.array[wp.int32], out_values: wp.array[wp.int32]):
    count = wp.int32(0)
    for i in reversed(range(start, end, step)):
        out_values[count] = i
        count += 1
    for j in reversed(range(4)):
        out_values[count] = 100 + j
        count += 1
    out_count[0] = count


@wp.func
def scaled_plus(a: float, scale: float = 2.0, offset: int = 3) -> float:
    return a * scale + float(offset)


@vk.requires(lambda x, out: x.shape[0] == vk.launch_dim() and out.shape[0] == x.shape[0])
@wp.kernel
def func_defaults(x: wp.array[float], out: wp.array[float]):
    i = wp.tid()
    out[i] = scaled_plus(x[i]) + scaled_plus(x[i], 10.0) + scaled_plus(x[i], 1.0, 0) \
        + scaled_plus(x[i], offset=1) + scaled_plus(scale=0.5, a=x[i])


def make_local_dtype():
    dtype = wp.float64

    @vk.requires(lambda values, out: values.shape[0] >= 1 and values.shape[1] >= 2)
    @vk.requires(lambda out: out.shape[0] >= 1 and vk.launch_dim() == 1)
    @wp.kernel
    def local_dtype(values: wp.array2d(dtype=dtype), out: wp.array(dtype=dtype)):
        out[0] = values[0, 1] + dtype(1.0)

    return local_dtype


local_dtype = make_local_dtype()


@vk.requires(lambda out: out.shape[0] >= 3 and vk.launch_dim() == 1)
@wp.kernel(enable_backward=False)
def run_time_rows(out: wp.array[wp.vec3]):
    m = wp.types.matrix(shape=(5, 3), dtype=float)
    m[0, 0] = 1.0
    m[0][1] = 2.0
    for i in range(1, 5):
        m[i] = m[i - 1] + wp.vec3(1.0, 2.0, 3.0)
    out[0] = m[4]
    out[1] = m[2]
    out[2] = m[0]


F64_TWO_PI = wp.constant(wp.float64(2.0 * math.pi))
I64_SEVEN = wp.constant(wp.int64(7))
H_TENTH = wp.float16(0.1)


@vk.requires(lambda b, v, out, o2, o3: b.shape[0] >= 2 and v.shape[0] >= 1 and out.shape[0] >= 1)
@vk.requires(lambda o2, o3: o2.shape[0] >= 1 and o3.shape[0] >= 1 and vk.launch_dim() == 1)
@wp.kernel
def typed_constants(b: wp.array[wp.float64], v: wp.array[wp.int64], out: wp.array[wp.float64],
                    o2: wp.array[wp.int64], o3: wp.array[wp.float16]):
    out[0] = -F64_TWO_PI * b[0] / (b[1] * b[1])
    o2[0] = -I64_SEVEN * v[0]
    o3[0] = H_TENTH + H_TENTH
