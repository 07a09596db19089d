"""Float literals compared with float64 values, as Warp types them: a literal,
arithmetic on literals, a module-level float constant and `wp.constant(0.1)`
are float32 and widened (`x < 0.1` compares against (double)0.1f);
`wp.float64(0.1)` and `wp.constant(wp.float64(0.1))` are exact. Column k of
`out` is comparison k (tests/warp_compat/test_warp_float_literals.py against
warp-lang, tests/frontend/test_fe_float_literal_compare.py by hand)."""
import warp as wp

TENTH = 0.1
CONST_TENTH = wp.constant(0.1)
CONST_TENTH64 = wp.constant(wp.float64(0.1))


@wp.kernel
def compares(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float32),
             out: wp.array(dtype=wp.int32, ndim=2)):
    i = wp.tid()
    out[i, 0] = wp.where(x[i] < 0.1, 1, 0)
    out[i, 1] = wp.where(x[i] == 0.1, 1, 0)
    out[i, 2] = wp.where(0.1 >= x[i], 1, 0)
    out[i, 3] = wp.where(x[i] > -0.1, 1, 0)
    out[i, 4] = wp.where(x[i] != 1.0 / 3.0, 1, 0)
    out[i, 5] = wp.where(y[i] < 0.1, 1, 0)
    out[i, 6] = wp.where(x[i] < wp.float64(0.1), 1, 0)
    if x[i] <= 0.1:
        out[i, 7] = 1
    out[i, 8] = wp.where(x[i] < TENTH, 1, 0)
    out[i, 9] = wp.where(x[i] < CONST_TENTH, 1, 0)
    out[i, 10] = wp.where(x[i] < CONST_TENTH64, 1, 0)
