# expect: failed bounds
# ok_struct_generic_overloaded_loads with the Charges overload guarding its read with `<=`: the call through the generic func resolves to that overload, which reads c.charges one past its end (the Masses overload, which a match by fields could pick as well, has no bug). Witness: one mass and no charges: thread 0 reads q.charges[0].
# bug: 38:35 bounds
# witness bounds: dim=1, block_dim=1, q__masses=zeros(float32, 1), q__charges=zeros(float32, 0), out=zeros(float32, 1)
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
    if i <= c.charges.shape[0]:
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
