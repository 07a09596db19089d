# expect: failed bounds
# ok_generic_directed_effective_moments with `i <= dipoles.shape[0]`: the vec3/mat33 instance the directed start search found (and its float64 twin) reads one dipole past the end, with a counterexample the simulator replays; `effective_moments[...]` stays unknown (never proved). Witness: one thread, no dipoles.
# kernel: effective_moments[float32, vec3, vec3, vec3, mat33, vec3, mat33]
# bug: 19:27 bounds
# witness bounds: dim=1, block_dim=1, charges=zeros(float32, 1), dipoles=zeros(float32, (0, 3)), gg_pos=zeros(float32, (1, 3)), gg_dipoles=zeros(float32, (1, 3)), gg_quadrupoles=zeros(float32, (1, 3, 3)), eff_d=zeros(float32, (1, 3)), eff_q=zeros(float32, (1, 3, 3))
from typing import Any

import warp as wp


@wp.kernel
def effective_moments(charges: wp.array(dtype=Any), dipoles: wp.array(dtype=Any), gg_pos: wp.array(dtype=Any),
                      gg_dipoles: wp.array(dtype=Any), gg_quadrupoles: wp.array(dtype=Any),
                      eff_d: wp.array(dtype=Any), eff_q: wp.array(dtype=Any)):
    i = wp.tid()
    if i < charges.shape[0] and i <= dipoles.shape[0] and i < gg_pos.shape[0] and i < gg_dipoles.shape[0] \
            and i < gg_quadrupoles.shape[0] and i < eff_d.shape[0] and i < eff_q.shape[0]:
        gp = gg_pos[i]
        om = wp.outer(gp, dipoles[i])
        eff_d[i] = gg_dipoles[i] + charges[i] * gp
        eff_q[i] = gg_quadrupoles[i] + om + wp.transpose(om)
