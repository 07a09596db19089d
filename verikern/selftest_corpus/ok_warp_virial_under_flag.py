# expect: proved
# Accumulates a virial only when compute_virial is set (nvalchemi's dsf.py pattern): acc is first assigned under `if compute_virial:` and read later only under the same test, so every read follows an assignment (the `unassigned` obligations are proved).
import warp as wp


@wp.kernel
def virial_under_flag(x: wp.array(dtype=float), compute_virial: bool,
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
    if compute_virial:
        virial[i] = acc
