# expect: failed race,uninit
# Tiled transpose (32x33 shared tile) without the barrier between filling the tile and reading it transposed. Witness: dim=(1, 256), a.shape=out.shape=(32, 32): thread 1 writes tile[0, 1] while thread 32 reads tile[0, 1]. The same missing barrier lets tile elements be read before their writes happen (uninit).
# bug: 24:13 race 29:31
# bug: 29:31 uninit
# witness race: dim=(1, 256), block_dim=256, a=zeros(float32, (32, 32)), out=zeros(float32, (32, 32))
# witness uninit: dim=(1, 256), block_dim=256, a=zeros(float32, (32, 32)), out=zeros(float32, (32, 32))
import verikern as vk


@vk.kernel(block_dim=256)
def transpose_tiled_no_barrier(a: vk.array(dtype=vk.float32, ndim=2), out: vk.array(dtype=vk.float32, ndim=2)):
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
        if row < a.shape[0] and col < a.shape[1]:
            tile[ty + k, tx] = a[row, col]
    ocol = by * 32 + tx
    for k in range(0, 32, 8):
        orow = bx * 32 + ty + k
        if orow < out.shape[0] and ocol < out.shape[1]:
            out[orow, ocol] = tile[tx, ty + k]
