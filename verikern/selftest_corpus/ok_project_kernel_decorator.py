# expect: proved
# A project's own kernel decorator (warp-simdata's shape: a function returning wp.kernel(**options)(fn) through a nested decorator), read from its source: the kernels it decorates are verified like @wp.kernel ones.
import warp as wp


def kernel(fn=None, /, **options):
    options.setdefault("enable_backward", False)

    def decorator(f):
        return wp.kernel(**options)(f)

    if fn is not None:
        return decorator(fn)
    return decorator


@kernel(module="unique")
def shift_left(x: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if i + 1 < x.shape[0] and i < out.shape[0]:
        out[i] = x[i + 1]
