# expect: proved
# A generic velocity damping (velocities and masses of dtype Any, as nvalchemi's Langevin integrator writes them) that divides by a generic mass, `type(m)(1.0) / m`. The mass's inverse is the exponent of `wp.exp`, which Warp builds for float scalars only, so every instantiation Warp builds divides floats there (no fault); the type-oblivious proof keeps that division and proves every instantiation at once (vec3 or vec2d velocities with float16..float64 masses), the enumerated scalar ones included.
# kernel: damp[float32, float32]
from typing import Any

import warp as wp


@wp.kernel
def damp(velocities: wp.array(dtype=Any), masses: wp.array(dtype=Any)):
    i = wp.tid()
    if i < velocities.shape[0] and i < masses.shape[0]:
        m = masses[i]
        inv_mass = type(m)(1.0) / m
        factor = wp.exp(-inv_mass)
        velocities[i] = velocities[i] * factor
