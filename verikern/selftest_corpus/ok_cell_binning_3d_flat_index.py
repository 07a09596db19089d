# expect: proved
# Counts particles per cell of an n x n x n grid stored flat (cells[(cz * n + cy) * n + cx]), each coordinate clamped into [0, n): with n <= 1024 the contract n * n * n cannot wrap (at most 2**30), so the flat index stays below it. Proved through literal product bounds (n*n <= 2**20, n*n*n <= 2**30) and the mixed-radix sum bound; the budget ran out before (issue 27).
import warp as wp


@wp.kernel
def bin_cells(coords: wp.array(dtype=wp.int32, ndim=2), cell_count: wp.array(dtype=wp.int32), n: wp.int32):
    wp.requires(n > 0 and n <= 1024)
    wp.requires(coords.shape[1] == 3)
    wp.requires(cell_count.shape[0] == n * n * n)
    i = wp.tid()
    if i < coords.shape[0]:
        cx = wp.clamp(coords[i, 0], 0, n - 1)
        cy = wp.clamp(coords[i, 1], 0, n - 1)
        cz = wp.clamp(coords[i, 2], 0, n - 1)
        wp.atomic_add(cell_count, (cz * n + cy) * n + cx, 1)
