# expect: proved
# `m = table[zi, zi]` binds a view of a 4-d table (nvalchemi's DFT-D3 `c6_reference[z_i, z_j]`) and a func sums it: every access m[p, q] is table[zi, zi, p, q], and the guard on zi and the loops over m's shape (the table's last two dimensions) keep every index in bounds.
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
        if zi >= 0 and zi < table.shape[0] and zi < table.shape[1]:
            m = table[zi, zi]
            out[i] = total(m)
