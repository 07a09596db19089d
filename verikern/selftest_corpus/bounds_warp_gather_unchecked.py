# expect: failed bounds
# Gather written with warp names, with no check on the index values (Warp would wrap -1 to the last element; verikern treats it as out of bounds). Witness: dim=1, idx=[-1], x.shape=out.shape=(1,): thread 0 reads x[-1].
# bug: 12:18 bounds
# witness bounds: dim=1, block_dim=1, x=zeros(float32, 1), idx=array(int32, [-1]), out=zeros(float32, 1)
import warp as wp


@wp.kernel
def gather_wp(x: wp.array(dtype=wp.float32), idx: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < idx.shape[0] and i < out.shape[0]:
        out[i] = x[idx[i]]
