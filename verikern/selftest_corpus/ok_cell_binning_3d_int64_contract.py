# expect: proved
# Counts particles per cell of an n x n x n grid stored flat (cells[(cz * n + cy) * n + cx], an int32 index), each coordinate clamped into [0, n), under the int64 contract int64(cell_count.shape[0]) == int64(n)**3 with n <= 1024: the int64 cube is exact and equals the int32 length, so the int32 products n * n, (n * n) * n and the index below them are that same value's narrow twins. Without a bound on n the int64 cube wraps (n = 2**22 gives 0). Unknown (budget) before the narrow-twin facts (issue 27).
import warp as wp


@wp.kernel
def bin_cells64(coords: wp.array(dtype=wp.int32, ndim=2), cell_count: wp.array(dtype=wp.int32), n: wp.int32):
    wp.requires(n > 0 and n <= 1024)
    wp.requires(coords.shape[1] == 3)
    wp.requires(wp.int64(cell_count.shape[0]) == wp.int64(n) * wp.int64(n) * wp.int64(n))
    i = wp.tid()
    if i < coords.shape[0]:
        cx = wp.clamp(coords[i, 0], 0, n - 1)
        cy = wp.clamp(coords[i, 1], 0, n - 1)
        cz = wp.clamp(coords[i, 2], 0, n - 1)
        wp.atomic_add(cell_count, (cz * n + cy) * n + cx, 1)
