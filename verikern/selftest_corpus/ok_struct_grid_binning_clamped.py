# expect: proved
# Bins points into the cells of a 1-D grid held in a @wp.struct (cell count, left edge, cell size and the counts array as fields); the float coordinate's cell is clamped into [0, grid.n).
import warp as wp


@wp.struct
class Grid:
    n: wp.int32
    x0: wp.float32
    cell_size: wp.float32
    counts: wp.array(dtype=wp.int32)


@wp.kernel
def bin_grid(grid: Grid, pts: wp.array(dtype=wp.vec3)):
    wp.requires(grid.n > 0 and grid.counts.shape[0] == grid.n)
    i = wp.tid()
    if i < pts.shape[0]:
        c = wp.clamp(int((pts[i][0] - grid.x0) / grid.cell_size), 0, grid.n - 1)
        wp.atomic_add(grid.counts, c, 1)
