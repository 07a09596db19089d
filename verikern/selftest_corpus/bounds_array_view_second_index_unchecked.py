# expect: failed bounds
# The guard checks zi against the table's first dimension only, and the view `m = table[zi, zi]` fixes it as the second index too: each access m[p, q] in the func is table[zi, zi, p, q], out of bounds when the second dimension is shorter. Witness: z = [1], a table of shape (2, 1, 1, 1): thread 0 reads table[1, 1, 0, 0].
# bug: 13:18 bounds
# witness bounds: dim=1, block_dim=1, z=array(int32, [1]), table=zeros(float32, (2, 1, 1, 1)), out=zeros(float32, 1)
import warp as wp


@wp.func
def total(m: wp.array2d(dtype=wp.float32)) -> wp.float32:
    s = wp.float32(0.0)
    for p in range(m.shape[0]):
        for q in range(m.shape[1]):
            s += m[p, q]
    return s


@wp.kernel
def pair_table_sum(z: wp.array(dtype=wp.int32), table: wp.array4d(dtype=wp.float32),
                   out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < z.shape[0] and i < out.shape[0]:
        zi = z[i]
        if zi >= 0 and zi < table.shape[0]:
            m = table[zi, zi]
            out[i] = total(m)
