# expect: proved
# Brightens a row-major image stored flat, from a 2-D launch with guards, indexing with an int64 flat index int64(y) * int64(width) + int64(x); the contract is stated in int64 too, where width * height cannot wrap.
import warp as wp


@wp.kernel
def brighten_flat64(f: wp.array(dtype=wp.float32), width: wp.int32, height: wp.int32):
    wp.requires(width >= 0 and height >= 0)
    wp.requires(wp.int64(f.shape[0]) == wp.int64(width) * wp.int64(height))
    y, x = wp.tid()
    if y < height and x < width:
        idx = wp.int64(y) * wp.int64(width) + wp.int64(x)
        f[idx] = f[idx] * 2.0
