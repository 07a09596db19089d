# expect: proved
# Fills a 3-D voxel grid from a 3-D launch (i, j, k = wp.tid(), launch dims unrelated to the grid's shape); every thread checks all three dimensions. Two threads never share a voxel: distinct threads have distinct (i, j, k).
import warp as wp


@wp.kernel
def fill_voxels(grid: wp.array(dtype=wp.float32, ndim=3), value: wp.float32):
    i, j, k = wp.tid()
    if i < grid.shape[0] and j < grid.shape[1] and k < grid.shape[2]:
        grid[i, j, k] = value
