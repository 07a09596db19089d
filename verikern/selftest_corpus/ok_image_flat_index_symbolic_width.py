# expect: proved
# Unpacks a row-major image stored flat (f[y * width + x], width a parameter) into a 2-D array, launched as dim=(height, width): the launch size limit keeps width * height from wrapping, so the requires f.shape[0] == width * height bounds every flat index.
import warp as wp


@wp.kernel
def unpack_image(f: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32, ndim=2), width: wp.int32, height: wp.int32):
    wp.requires(wp.launch_dim(0) == height and wp.launch_dim(1) == width)
    wp.requires(out.shape[0] == height and out.shape[1] == width)
    wp.requires(f.shape[0] == width * height)
    y, x = wp.tid()
    out[y, x] = f[y * width + x]
