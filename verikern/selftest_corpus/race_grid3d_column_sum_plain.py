# expect: failed race
# Sums a 3-D grid along its last axis from a 3-D launch, but every thread of a column adds into the same out[i, j] with a plain read-modify-write (no atomic). Witness: dim=(1, 1, 2), grid.shape=(1, 1, 2), out.shape=(1, 1): threads (0, 0, 0) and (0, 0, 1) both write out[0, 0].
# bug: 13:9 race 13:9
# witness race: dim=(1, 1, 2), block_dim=2, grid=zeros(float32, (1, 1, 2)), out=zeros(float32, (1, 1))
import warp as wp


@wp.kernel
def column_sum(grid: wp.array(dtype=wp.float32, ndim=3), out: wp.array(dtype=wp.float32, ndim=2)):
    wp.requires(out.shape[0] == grid.shape[0] and out.shape[1] == grid.shape[1])
    i, j, k = wp.tid()
    if i < grid.shape[0] and j < grid.shape[1] and k < grid.shape[2]:
        out[i, j] = out[i, j] + grid[i, j, k]
