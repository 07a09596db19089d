"""The type-oblivious proof keeps a division by a value of a generic type only
when Warp's typing rules make the divisor a float in every instantiation it
builds (frontend/check/generic_scalars.py; the rules are checked against real
Warp in tests/warp_compat/test_warp_generic_scalars.py), and never when an
instance that type-checks divides integers there."""
from __future__ import annotations

import pytest

from verikern.frontend import compile_source
from verikern.frontend.check import generic_scalars

HEAD = "from typing import Any\n\nimport warp as wp\n\n\n"
DAMP = '''@wp.kernel
def damp(velocities: wp.array(dtype=Any), masses: wp.array(dtype=Any){PARAMS}):
    i = wp.tid()
    if i < velocities.shape[0] and i < masses.shape[0]:
        m = masses[i]
        inv_mass = type(m)(1.0) / m
{BODY}
'''


def _more(src: str):
    (more,) = [k for k in compile_source(HEAD + src, "g.py").kernels if k.name.endswith("[...]")]
    return more


@pytest.mark.parametrize("params, body", [
    ("", "        velocities[i] = velocities[i] * wp.exp(-inv_mass)"),              # exp takes floats only
    ("", "        s = wp.sqrt(inv_mass * m)\n        velocities[i] = velocities[i] * s"),   # through a product
    (", dt: float", "        velocities[i] = velocities[i] * (inv_mass * dt)"),        # a float32 parameter
    (", rates: wp.array(dtype=float)", "        velocities[i] = velocities[i] * (rates[i] * inv_mass)"),
    ("", "        velocities[i] = velocities[i] * wp.exp(wp.min(inv_mass, m))"),   # min keeps one type
    ("", "        velocities[i] = velocities[i] * wp.exp(wp.where(i > 0, inv_mass, m))"),
])
def test_a_division_whose_divisor_warp_makes_a_float_is_kept(params, body):
    more = _more(DAMP.format(PARAMS=params, BODY=body))
    assert more.opaque is not None, more.opaque_refusal


@pytest.mark.parametrize("params, body", [
    ("", "        velocities[i] = velocities[i] * inv_mass"),                    # int vectors and masses build
    ("", "        velocities[i] = velocities[i] * inv_mass\n        e = wp.exp(float(m))"),   # a cast ends it
    (", scale: wp.array(dtype=Any)", "        velocities[i] = velocities[i] * (inv_mass * scale[i])"),
    ("", "        velocities[i] = velocities[i] * wp.exp(type(inv_mass)(masses[0] * 2.0))"),   # converted
    ("", "        velocities[i] = velocities[i] * inv_mass\n        e = wp.exp(wp.float32(2.0))"),
])
def test_a_division_whose_divisor_may_be_an_integer_is_refused(params, body):
    more = _more(DAMP.format(PARAMS=params, BODY=body))
    assert more.opaque is None and "nothing in the kernel makes a float" in more.opaque_refusal


def test_every_binding_of_a_local_has_its_class():
    """`w` is the mass's inverse, then an exp: Warp refuses to bind a name to another type (in any
    branch; tests/warp_compat/test_warp_generic_scalars.py), so the inverse is a float too."""
    body = ("        w = inv_mass\n        velocities[i] = velocities[i] * w\n"
            "        w = wp.exp(rates[i])\n        velocities[i] = velocities[i] * w")
    assert _more(DAMP.format(PARAMS=", rates: wp.array(dtype=Any)", BODY=body)).opaque is not None
    branches = ("        if i > 0:\n            w = inv_mass\n        else:\n            w = wp.exp(rates[i])\n"
                "        velocities[i] = velocities[i] * w")
    assert _more(DAMP.format(PARAMS=", rates: wp.array(dtype=Any)", BODY=branches)).opaque is not None
def test_a_component_does_not_take_its_values_class():
    """A struct instantiation's fields have types of their own: `p.y` a float does not make `p.x` one."""
    src = '''@wp.kernel
def k(points: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < points.shape[0] and i < out.shape[0]:
        p = points[i]
        x = p.x
        e = wp.exp(p.y)
        out[i] = p * (type(x)(1.0) / x)
'''
    more = _more(src)
    assert more.opaque is None and "division" in more.opaque_refusal


def test_a_func_links_its_arguments_and_its_result_per_call():
    src = '''@wp.func
def accel(f: Any, m: Any):
    return f / m


@wp.kernel
def step(masses: wp.array(dtype=Any), forces: wp.array(dtype=Any), dt: wp.array(dtype=float),
         out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < masses.shape[0] and i < forces.shape[0] and i < out.shape[0] and dt.shape[0] > 0:
        out[i] = accel(forces[i], masses[i]) * dt[0]
'''
    assert _more(src).opaque is not None
    assert _more(src.replace("* dt[0]", "")).opaque is None


def test_an_instance_that_divides_integers_where_a_division_was_kept_refuses_it(monkeypatch):
    """If the rules called a divisor float that the checker types as an integer in an enumerated
    instance, that instance decides: no type-oblivious proof (wp.abs takes ints too; called float here)."""
    monkeypatch.setattr(generic_scalars, "FLOAT_ONLY", generic_scalars.FLOAT_ONLY | {"abs"})
    more = _more(DAMP.format(PARAMS="", BODY="        velocities[i] = velocities[i] * wp.abs(inv_mass)"))
    assert more.opaque is None and "divides integers in damp[int8, int8]" in more.opaque_refusal
    monkeypatch.setattr(generic_scalars, "FLOAT_ONLY", generic_scalars.FLOAT_ONLY - {"abs"})
    assert _more(DAMP.format(PARAMS="", BODY="        velocities[i] = velocities[i] * wp.abs(inv_mass)")
                 ).opaque is None
