# expect: failed bounds
# Fills a 3-D voxel grid from a 3-D launch but checks the last index against the grid's depth (shape[1]) instead of its width (shape[2]). Witness: dim=(1, 2, 2), grid.shape=(1, 2, 1): thread (0, 0, 1) writes grid[0, 0, 1].
# bug: 12:9 bounds
# witness bounds: dim=(1, 2, 2), block_dim=4, grid=zeros(float32, (1, 2, 1)), value=1.0
import warp as wp


@wp.kernel
def fill_voxels_wrong_guard(grid: wp.array(dtype=wp.float32, ndim=3), value: wp.float32):
    i, j, k = wp.tid()
    if i < grid.shape[0] and j < grid.shape[1] and k < grid.shape[1]:
        grid[i, j, k] = value
