# expect: proved
# A local struct that holds arrays, built field by field from the kernel's array parameters and passed to a func with a row view of a 2-d array (warpSPHCore's radius search: `domainState = domainData()`, `domainState.domainMin = min_domain`, `computeCartesianDistance(x[i], y[j], domainState)`): each array field is the parameter it was assigned, so the func's reads through the struct are reads of lo and hi, in bounds under the contract on their lengths.
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
    wp.requires(lo.shape[0] == points.shape[1] and hi.shape[0] == points.shape[1]
                and out.shape[0] == points.shape[0] and out.shape[1] == points.shape[1])
    i = wp.tid()
    d = Domain()
    d.lo = lo
    d.hi = hi
    d.dim = points.shape[1]
    if i < points.shape[0]:
        for k in range(d.dim):
            out[i, k] = clamp_component(points[i], d, k)
