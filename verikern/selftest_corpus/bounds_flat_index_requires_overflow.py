# expect: failed bounds
# Unflattens a row-major matrix; the requires flat.shape[0] == rows * cols wraps in int32 (contracts use machine arithmetic). Witness: rows=65537, cols=65536 (product wraps to 65536), flat.shape=(65536,), out.shape=(2, 1), dim=(2, 1): thread (1, 0) reads flat[65536].
# bug: 14:21 bounds
# witness bounds: dim=(2, 1), block_dim=2, flat=zeros(float32, 65536), out=zeros(float32, (2, 1)), rows=65537, cols=65536
import verikern as vk


@vk.kernel
def unflatten(flat: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32, ndim=2), rows: vk.int32, cols: vk.int32):
    vk.requires(rows >= 0 and cols >= 0)
    vk.requires(flat.shape[0] == rows * cols)
    r, c = vk.tid()
    if r < rows and c < cols and r < out.shape[0] and c < out.shape[1]:
        out[r, c] = flat[r * cols + c]
