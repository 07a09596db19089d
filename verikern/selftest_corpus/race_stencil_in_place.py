# expect: failed race
# 3-point smoothing done in place (halo-guarded, so bounds hold). Witness: dim=4, x.shape=(4,): thread 1 writes x[1] while thread 2 reads x[1], no barrier.
# bug: 13:23 race 13:9
# bug: 13:34 race 13:9
# witness race: dim=4, block_dim=4, x=zeros(float32, 4)
import verikern as vk


@vk.kernel
def stencil3_in_place(x: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i >= 1 and i + 1 < x.shape[0]:
        x[i] = 0.5 * (x[i - 1] + x[i + 1])
