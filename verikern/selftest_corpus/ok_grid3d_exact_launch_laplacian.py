# expect: proved
# 7-point Laplacian on a 3-D grid launched with exactly the grid's shape (the requires ties the three launch dims to it); interior voxels only, boundary voxels are copied.
import warp as wp


@wp.kernel
def laplacian3d(u: wp.array(dtype=wp.float32, ndim=3), out: wp.array(dtype=wp.float32, ndim=3)):
    wp.requires(wp.launch_dim(0) == u.shape[0] and wp.launch_dim(1) == u.shape[1] and wp.launch_dim(2) == u.shape[2])
    wp.requires(out.shape[0] == u.shape[0] and out.shape[1] == u.shape[1] and out.shape[2] == u.shape[2])
    i, j, k = wp.tid()
    if i > 0 and j > 0 and k > 0 and i < u.shape[0] - 1 and j < u.shape[1] - 1 and k < u.shape[2] - 1:
        s = u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k] + u[i, j, k - 1] + u[i, j, k + 1]
        out[i, j, k] = s - 6.0 * u[i, j, k]
    else:
        out[i, j, k] = u[i, j, k]
