# expect: failed race,uninit
# Tiled matmul without the barrier between loading a tile and using it. Witness: dim=(1, 256), a.shape=b.shape=(16, 16): thread 1 writes sa[0, 1] while thread 0 reads sa[0, 1] in the same interval. The same missing barrier lets thread 1 read sa[0, 0] before thread 0 writes it (uninit).
# bug: 35:9 race 41:20
# bug: 39:9 race 41:33
# bug: 41:20 uninit
# bug: 41:33 uninit
# witness race: dim=(1, 256), block_dim=256, a=zeros(float32, (16, 16)), b=zeros(float32, (16, 16)), c=zeros(float32, (16, 16))
# witness uninit: dim=(1, 256), block_dim=256, a=zeros(float32, (16, 16)), b=zeros(float32, (16, 16)), c=zeros(float32, (16, 16))
import verikern as vk

TILE = 16


@vk.kernel(block_dim=256)
def matmul_tiled_no_load_barrier(a: vk.array(dtype=vk.float32, ndim=2), b: vk.array(dtype=vk.float32, ndim=2), c: vk.array(dtype=vk.float32, ndim=2)):
    vk.requires(a.shape[1] == b.shape[0])
    vk.requires(c.shape[0] == a.shape[0] and c.shape[1] == b.shape[1])
    vk.requires(vk.launch_dim(1) % 256 == 0)
    sa = vk.shared.array(shape=(TILE, TILE), dtype=vk.float32)
    sb = vk.shared.array(shape=(TILE, TILE), dtype=vk.float32)
    by, j = vk.tid()
    bx = j // 256
    t = j % 256
    ty = t // TILE
    tx = t % TILE
    row = by * TILE + ty
    col = bx * TILE + tx
    kdim = a.shape[1]
    acc = 0.0
    for kt in range(kdim // TILE + 1):
        k0 = kt * TILE
        va = 0.0
        if row < a.shape[0] and k0 + tx < kdim:
            va = a[row, k0 + tx]
        sa[ty, tx] = va
        vb = 0.0
        if k0 + ty < kdim and col < b.shape[1]:
            vb = b[k0 + ty, col]
        sb[ty, tx] = vb
        for kk in range(TILE):
            acc += sa[ty, kk] * sb[kk, tx]
        vk.sync_threads()
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = acc
