# expect: failed bounds
# A local struct that holds arrays, built from the kernel's array parameters as ok_local_struct_domain_arrays does, but the contract bounds only lo's length: the func reads hi through the struct's field, which is the parameter hi, past its end. Witness: one point of one component and an empty hi: thread 0 reads hi[0] through d.hi.
# bug: 17:36 bounds
# witness bounds: dim=1, block_dim=1, points=zeros(float32, (1, 1)), lo=zeros(float32, 1), hi=zeros(float32, 0), out=zeros(float32, (1, 1))
import warp as wp


@wp.struct
class Domain:
    lo: wp.array(dtype=wp.float32)
    hi: wp.array(dtype=wp.float32)
    dim: wp.int32


@wp.func
def clamp_component(p: wp.array(dtype=wp.float32), d: Domain, k: wp.int32) -> wp.float32:
    return wp.clamp(p[k], d.lo[k], d.hi[k])


@wp.kernel
def clamp_points(points: wp.array2d(dtype=wp.float32), lo: wp.array(dtype=wp.float32),
                 hi: wp.array(dtype=wp.float32), out: wp.array2d(dtype=wp.float32)):
    wp.requires(lo.shape[0] == points.shape[1]
                and out.shape[0] == points.shape[0] and out.shape[1] == points.shape[1])
    i = wp.tid()
    d = Domain()
    d.lo = lo
    d.hi = hi
    d.dim = points.shape[1]
    if i < points.shape[0]:
        for k in range(d.dim):
            out[i, k] = clamp_component(points[i], d, k)
