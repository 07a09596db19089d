# expect: failed race
# Sum with warp names where thread 0 also resets total[0] with a plain store in the same launch. Witness: dim=2, x.shape=(2,), total.shape=(1,): thread 0's store total[0] = 0.0 races with thread 1's atomic add.
# bug: 12:9 race 14:9
# witness race: dim=2, block_dim=2, x=zeros(float32, 2), total=zeros(float32, 1)
import warp as wp


@wp.kernel
def sum_with_reset_wp(x: wp.array(dtype=wp.float32), total: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i == 0 and total.shape[0] > 0:
        total[0] = 0.0
    if i < x.shape[0] and total.shape[0] > 0:
        wp.atomic_add(total, 0, x[i])
