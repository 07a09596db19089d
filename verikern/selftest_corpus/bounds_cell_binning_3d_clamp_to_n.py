# expect: failed bounds
# Counts particles per cell of an n x n x n grid stored flat, but clamps the z coordinate into [0, n] instead of [0, n): a particle at cz == n indexes one layer past the grid. Witness: n=1, cell_count.shape=(1,), one particle at (0, 0, 1): thread 0 adds to cell_count[1].
# bug: 18:9 bounds
# witness bounds: dim=1, block_dim=1, coords=array(int32, [[0, 0, 1]]), cell_count=zeros(int32, 1), n=1
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
        cz = wp.clamp(coords[i, 2], 0, n)
        wp.atomic_add(cell_count, (cz * n + cy) * n + cx, 1)
