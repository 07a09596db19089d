# expect: failed div-zero
# ok_generic_damping_exp_makes_mass_float without `wp.exp`: nothing makes the mass a float, and Warp builds the kernel with integer masses (int32 velocities and masses), whose `type(m)(1.0) / m` divides by zero for a zero mass (x86's idiv traps). The type-oblivious proof refuses the division (so `damp[...]` stays unknown) and each integer instance fails (the 64-bit ones need more than the default budget's share of the kernel's work, hence --budget 60). Witness: one zero int32 mass.
# kernel: damp[int32, int32]
# prove-args: --budget 60
# no-type-oblivious-proof: nothing in the kernel makes a float
# bug: 18:20 div-zero
# witness div-zero: dim=1, block_dim=1, velocities=zeros(int32, 1), masses=zeros(int32, 1)
from typing import Any

import warp as wp


@wp.kernel
def damp(velocities: wp.array(dtype=Any), masses: wp.array(dtype=Any)):
    i = wp.tid()
    if i < velocities.shape[0] and i < masses.shape[0]:
        m = masses[i]
        inv_mass = type(m)(1.0) / m
        factor = -inv_mass
        velocities[i] = velocities[i] * factor
