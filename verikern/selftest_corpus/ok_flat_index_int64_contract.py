# expect: proved
# Unflattens a row-major matrix (flat[r * cols + c], an int32 index) under the contract int64(flat.shape[0]) == int64(rows) * int64(cols): stated in int64 the product cannot wrap to match a small array (in int32 it can, see bounds_flat_index_requires_overflow), and it equals an int32 length, so the int32 product rows * cols and the index below it do not wrap either. Unknown (budget) before the narrow-twin facts (issue 27).
import verikern as vk


@vk.kernel
def unflatten64(flat: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32, ndim=2), rows: vk.int32, cols: vk.int32):
    vk.requires(vk.int64(flat.shape[0]) == vk.int64(rows) * vk.int64(cols))
    r, c = vk.tid()
    if r < rows and c < cols and r < out.shape[0] and c < out.shape[1]:
        out[r, c] = flat[r * cols + c]
