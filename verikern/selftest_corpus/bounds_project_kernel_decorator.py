# expect: failed bounds
# A kernel decorated with a project's own wrapper of wp.kernel is verified, not skipped: the guard covers x[i] but the kernel reads x[i + 1]. Witness: dim=2, arrays of 2 elements: thread 1 reads x[2].
# bug: 21:18 bounds
# witness bounds: dim=2, block_dim=1, x=zeros(int32, 2), out=zeros(int32, 2)
import warp as wp


def kernel(fn=None, /, **options):
    def decorator(f):
        return wp.kernel(**options)(f)

    if fn is not None:
        return decorator(fn)
    return decorator


@kernel
def shift_left(x: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if i < x.shape[0] and i < out.shape[0]:
        out[i] = x[i + 1]
