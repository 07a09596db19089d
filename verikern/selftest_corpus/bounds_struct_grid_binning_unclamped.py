# expect: failed bounds
# Bins points into the cells of a 1-D grid held in a @wp.struct, checking only c < grid.n: a point left of the grid's left edge gives a negative cell. Witness: one point at x = -3 with the left edge at 0 and unit cells: thread 0 adds to grid.counts[-3].
# bug: 25:17 bounds
# witness bounds: dim=1, block_dim=1, grid__n=1, grid__x0=0.0, grid__cell_size=1.0, grid__counts=zeros(int32, 1), pts=array(float32, [[-3.0, 0.0, 0.0]])
import warp as wp


@wp.struct
class Grid:
    n: wp.int32
    x0: wp.float32
    cell_size: wp.float32
    counts: wp.array(dtype=wp.int32)


@wp.kernel
def bin_grid_unclamped(grid: Grid, pts: wp.array(dtype=wp.vec3)):
    wp.requires(grid.counts.shape[0] == grid.n and grid.cell_size >= 1.0)
    i = wp.tid()
    if i < pts.shape[0]:
        d = pts[i][0] - grid.x0
        if d > -1000.0 and d < 1000.0:
            c = int(d / grid.cell_size)
            if c < grid.n:
                wp.atomic_add(grid.counts, c, 1)
