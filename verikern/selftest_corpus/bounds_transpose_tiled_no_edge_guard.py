# expect: failed bounds
# Tiled transpose that guards the tile load (zero-padding the tile) but not the store to out, so partial edge tiles write past the matrix. Witness: dim=(1, 256), a.shape=out.shape=(1, 1): thread 1 (tx=1, ty=0) writes out[0, 1].
# bug: 29:9 bounds
# witness bounds: dim=(1, 256), block_dim=256, a=zeros(float32, (1, 1)), out=zeros(float32, (1, 1))
import verikern as vk


@vk.kernel(block_dim=256)
def transpose_tiled_unguarded_store(a: vk.array(dtype=vk.float32, ndim=2), out: vk.array(dtype=vk.float32, ndim=2)):
    vk.requires(out.shape[0] == a.shape[1] and out.shape[1] == a.shape[0])
    vk.requires(vk.launch_dim(1) % 256 == 0)
    tile = vk.shared.array(shape=(32, 33), dtype=vk.float32)
    by, j = vk.tid()
    bx = j // 256
    t = j % 256
    tx = t % 32
    ty = t // 32
    col = bx * 32 + tx
    for k in range(0, 32, 8):
        row = by * 32 + ty + k
        v = 0.0
        if row < a.shape[0] and col < a.shape[1]:
            v = a[row, col]
        tile[ty + k, tx] = v
    vk.sync_threads()
    ocol = by * 32 + tx
    for k in range(0, 32, 8):
        orow = bx * 32 + ty + k
        out[orow, ocol] = tile[tx, ty + k]
