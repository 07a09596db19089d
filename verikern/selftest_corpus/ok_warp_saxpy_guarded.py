# expect: proved
# saxpy written with warp names (`import warp as wp`); no requires (Warp has none), the guard checks both lengths.
import warp as wp


@wp.kernel
def saxpy_wp(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32), a: wp.float32):
    i = wp.tid()
    if i < x.shape[0] and i < y.shape[0]:
        y[i] = a * x[i] + y[i]
