# expect: proved
# A struct with array fields passed to a generic func's `Any` parameter and on to a func overloaded per struct (warpSPHCore's `getParticleData(queryState, i)` with `queryState: Any`), each overload returning a struct it builds without a result annotation and guarding the field it reads beyond `masses`: the generic func is specialized to Charges, the call resolves to the Charges overload (the struct's own class), and every read is in bounds under the guards.
from typing import Any

import warp as wp


@wp.struct
class Masses:
    masses: wp.array(dtype=wp.float32)
    weights: wp.array(dtype=wp.float32)


@wp.struct
class Charges:
    masses: wp.array(dtype=wp.float32)
    charges: wp.array(dtype=wp.float32)


@wp.struct
class Load:
    value: wp.float32
    index: wp.int32


@wp.func
def load(c: Masses, i: wp.int32):
    if i < c.weights.shape[0]:
        return Load(c.masses[i] * c.weights[i], i)
    return Load(c.masses[i], i)


@wp.func
def load(c: Charges, i: wp.int32):  # noqa: F811  (a Warp overload per struct)
    if i < c.charges.shape[0]:
        return Load(c.masses[i] + c.charges[i], i)
    return Load(c.masses[i], i)


@wp.func
def doubled(c: Any, i: wp.int32):
    f = load(c, i)
    return 2.0 * f.value


@wp.kernel
def total_load(q: Charges, out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < out.shape[0] and i < q.masses.shape[0]:
        out[i] = doubled(q, i)
