# expect: failed unassigned
# The virial kernel with its last store taken out of `if compute_virial:`: with compute_virial false, acc was never assigned (Warp builds it and stores an indeterminate float). Witness: compute_virial=False, dim=1.
# bug: 23:17 unassigned
# witness unassigned: dim=1, block_dim=1, x=zeros(float32, 1), compute_virial=False, energy=zeros(float32, 1), virial=zeros(float32, 1)
import warp as wp


@wp.kernel
def virial_read_unflagged(x: wp.array(dtype=float), compute_virial: bool,
                          energy: wp.array(dtype=float), virial: wp.array(dtype=float)):
    i = wp.tid()
    if i >= x.shape[0] or i >= energy.shape[0] or i >= virial.shape[0]:
        return
    e = float(0.0)
    if compute_virial:
        acc = float(0.0)
    for j in range(x.shape[0]):
        d = x[j] - x[i]
        e += d * d
        if compute_virial:
            acc += d * x[j]
    energy[i] = e
    virial[i] = acc
