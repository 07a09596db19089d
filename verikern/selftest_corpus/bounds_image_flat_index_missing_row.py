# expect: failed bounds
# Unpacks a row-major image stored flat (f[y * width + x]) into a 2-D array, launched as dim=(height, width), but the flat buffer is one row short (f.shape[0] == width * height - width). Witness: dim=(2, 2), width=2, height=2, f.shape=(2,): thread (1, 0) reads f[2].
# bug: 14:17 bounds
# witness bounds: dim=(2, 2), block_dim=4, f=zeros(float32, 2), out=zeros(float32, (2, 2)), width=2, height=2
import warp as wp


@wp.kernel
def unpack_image_short(f: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32, ndim=2), width: wp.int32, height: wp.int32):
    wp.requires(wp.launch_dim(0) == height and wp.launch_dim(1) == width)
    wp.requires(out.shape[0] == height and out.shape[1] == width)
    wp.requires(f.shape[0] == width * height - width)
    y, x = wp.tid()
    out[y, x] = f[y * width + x]
