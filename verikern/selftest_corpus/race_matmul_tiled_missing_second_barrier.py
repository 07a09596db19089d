# expect: failed race
# Tiled matmul without the barrier after using a tile, so the next tile's loads overwrite elements other threads still read. Witness: dim=(1, 256), a.shape=(16, 16), b.shape=(16, 16): thread 1 reads sa[0, 0] in tile 0 while thread 0 writes sa[0, 0] for tile 1.
# bug: 32:9 race 39:20
# bug: 36:9 race 39:33
# witness race: dim=(1, 256), block_dim=256, a=zeros(float32, (16, 16)), b=zeros(float32, (16, 16)), c=zeros(float32, (16, 16))
import verikern as vk

TILE = 16


@vk.kernel(block_dim=256)
def matmul_tiled_one_barrier(a: vk.array(dtype=vk.float32, ndim=2), b: vk.array(dtype=vk.float32, ndim=2), c: vk.array(dtype=vk.float32, ndim=2)):
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
        vk.sync_threads()
        for kk in range(TILE):
            acc += sa[ty, kk] * sb[kk, tx]
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = acc
