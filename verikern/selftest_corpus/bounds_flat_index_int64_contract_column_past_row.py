# expect: failed bounds,race
# Fills a row-major matrix stored flat under the exact int64 contract int64(a.shape[0]) == int64(rows) * int64(cols), but guards the column with c <= cols: column cols of row r is element (r + 1) * cols, the first of the next row (a race with that row's thread) and, on the last row, one past the array. The near miss of the narrow-twin facts, which bound r * cols + c only for c < cols. Witnesses: rows=1, cols=1, a.shape=(1,), dim=(1, 2): thread (0, 1) writes a[1]; rows=3, cols=1, dim=(2, 2): threads (0, 1) and (1, 0) both write a[1].
# bug: 15:9 bounds
# bug: 15:9 race 15:9
# witness bounds: dim=(1, 2), block_dim=2, a=zeros(float32, 1), rows=1, cols=1
# witness race: dim=(2, 2), block_dim=4, a=zeros(float32, 3), rows=3, cols=1
import verikern as vk


@vk.kernel
def fill_past_row(a: vk.array(dtype=vk.float32), rows: vk.int32, cols: vk.int32):
    vk.requires(vk.int64(a.shape[0]) == vk.int64(rows) * vk.int64(cols))
    r, c = vk.tid()
    if r < rows and c <= cols:
        a[r * cols + c] = 1.0
