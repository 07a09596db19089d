# expect: proved
# A generic kernel whose body builds only with vec3 dipoles and mat33 quadrupoles (nvalchemi's PME effective moments: an outer product, vec3 and mat33 stores): no scalar typing and no single probe builds it, so the directed start search, changing the parameters each refused statement reads or writes, finds the vec3/mat33 typing and its float64 twin, both in bounds, and the type-oblivious proof covers every other instantiation.
# kernel: effective_moments[float32, vec3, vec3, vec3, mat33, vec3, mat33]
from typing import Any

import warp as wp


@wp.kernel
def effective_moments(charges: wp.array(dtype=Any), dipoles: wp.array(dtype=Any), gg_pos: wp.array(dtype=Any),
                      gg_dipoles: wp.array(dtype=Any), gg_quadrupoles: wp.array(dtype=Any),
                      eff_d: wp.array(dtype=Any), eff_q: wp.array(dtype=Any)):
    i = wp.tid()
    if i < charges.shape[0] and i < dipoles.shape[0] and i < gg_pos.shape[0] and i < gg_dipoles.shape[0] \
            and i < gg_quadrupoles.shape[0] and i < eff_d.shape[0] and i < eff_q.shape[0]:
        gp = gg_pos[i]
        om = wp.outer(gp, dipoles[i])
        eff_d[i] = gg_dipoles[i] + charges[i] * gp
        eff_q[i] = gg_quadrupoles[i] + om + wp.transpose(om)
