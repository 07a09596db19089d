"""Generic kernels whose `Any` parameters are structs (check/generic_struct_candidates.py,
check/struct_passing.py), on small project-shaped fixtures (a struct with array fields
passed as `Any` to generic funcs and on to funcs overloaded per struct, as warpsphcore's
operator kernels do): one instance per candidate struct, each call resolved to the
overload of the struct's own class (never by its fields), a func returning the struct
it builds without an annotation, and the count bounds named in `kernel[...]`'s reason."""
from __future__ import annotations

import pytest

from verikern.frontend import compile_source

HEAD = '''from typing import Any
import warp as wp
'''

CLOUDS = HEAD + '''

@wp.struct
class Cloud2:
    positions: wp.array(dtype=wp.vec2)
    masses: wp.array(dtype=wp.float32)


@wp.struct
class Cloud3:
    positions: wp.array(dtype=wp.vec3)
    masses: wp.array(dtype=wp.float32)


@wp.struct
class Stray:
    masses: wp.array(dtype=wp.float32)


@wp.struct
class Point2:
    position: wp.vec2
    mass: wp.float32


@wp.struct
class Point3:
    position: wp.vec3
    mass: wp.float32


@wp.func
def point(c: Cloud2, i: wp.int32):
    return Point2(c.positions[i], c.masses[i])


@wp.func
def point(c: Cloud3, i: wp.int32):
    return Point3(c.positions[i], c.masses[i])


@wp.func
def weighted(c: Any, i: wp.int32):
    p = point(c, i)
    return p.mass * wp.length(p.position)


@wp.kernel
def k(q: Any, out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < q.masses.shape[0] and i < q.positions.shape[0] and i < out.shape[0]:
        out[i] = weighted(q, i)
'''


def _instances(text: str):
    r = compile_source(text, "t.py")
    assert not r.errors, [e.render() for e in r.errors]
    return {k.name: k for k in r.kernels}


def test_a_struct_any_parameter_gets_the_structs_its_funcs_take_and_no_scalar_typing():
    ks = _instances(CLOUDS)
    assert list(ks) == ["k[Cloud2, float32]", "k[Cloud3, float32]", "k[...]"], list(ks)
    for name in ("k[Cloud2, float32]", "k[Cloud3, float32]"):
        assert ks[name].error is None and ks[name].mir is not None, ks[name].error
    assert sorted(f.name for f in ks["k[Cloud2, float32]"].hir.funcs) == ["point#0", "weighted#0<Cloud2, int32>"]
    assert sorted(f.name for f in ks["k[Cloud3, float32]"].hir.funcs) == ["point#1", "weighted#0<Cloud3, int32>"]
    more = ks["k[...]"]
    assert more.unknown and more.mir is None
    assert "q as Cloud2 or Cloud3" in more.error.message, more.error.message   # not Stray: no overload takes it


TWINS = HEAD + '''

@wp.struct
class A:
    values: wp.array(dtype=wp.float32)


@wp.struct
class B:
    values: wp.array(dtype=wp.float32)


@wp.func
def pick(c: A, i: wp.int32):
    return c.values[i]


@wp.func
def pick(c: B, i: wp.int32):
    return -c.values[i]


@wp.kernel
def k(q: Any, out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < q.values.shape[0] and i < out.shape[0]:
        out[i] = pick(q, i)
'''


def test_the_overload_is_chosen_by_the_struct_class_not_by_its_fields():
    ks = _instances(TWINS)
    assert list(ks) == ["k[A]", "k[B]", "k[...]"], list(ks)
    assert [f.name for f in ks["k[A]"].hir.funcs] == ["pick#0"]
    assert [f.name for f in ks["k[B]"].hir.funcs] == ["pick#1"]   # same fields, its own overload


def test_a_struct_no_overload_takes_is_refused_where_warp_finds_none():
    text = TWINS.replace('''@wp.func
def pick(c: B, i: wp.int32):
    return -c.values[i]
''', "").replace("def k(q: Any,", "def k(q: B,")
    r = compile_source(text, "t.py")
    (k,) = r.kernels
    assert k.error is not None and k.mir is None
    assert k.error.rule in ("type-mismatch", "no-overload", "struct-use"), k.error.render()


MIXED = CLOUDS.replace('''@wp.func
def weighted(c: Any, i: wp.int32):''', '''@wp.func
def either(c: Cloud2, i: wp.int32):
    if i > 0:
        return Point2(c.positions[i], c.masses[i])
    return Point3(wp.vec3(0.0), c.masses[i])


@wp.func
def weighted(c: Any, i: wp.int32):
    r = either(c, i)''')


def test_a_func_returning_two_structs_has_no_struct_result_and_the_assignment_is_located():
    r = compile_source(MIXED, "t.py")
    bad = [k for k in r.kernels if k.error is not None and not k.unknown] + list(r.errors)
    assert bad, [k.name for k in r.kernels]
    assert all(e.loc.line > 0 for e in (k.error if hasattr(k, "error") else k for k in bad))
    assert not any(k.mir is not None and "Cloud2" in k.name for k in r.kernels)


def test_the_struct_candidate_bound_is_a_count_and_is_named():
    structs = "".join(f'''

@wp.struct
class S{n:02d}:
    masses: wp.array(dtype=wp.float32)
''' for n in range(10))
    text = HEAD + structs + '''

@wp.kernel
def k(q: Any, out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < q.masses.shape[0] and i < out.shape[0]:
        out[i] = q.masses[i]
'''
    ks = _instances(text)
    assert [n for n in ks if n != "k[...]"] == [f"k[S{n:02d}]" for n in range(8)], list(ks)
    assert "q has 10 candidate structs, of which the first 8 by name were tried" in ks["k[...]"].error.message


@pytest.mark.parametrize("body", ["out[i] = q[i]", "out[i] = q.x"])
def test_a_parameter_without_struct_evidence_keeps_the_scalar_search(body):
    text = HEAD + CLOUDS.split("@wp.func")[0].split(HEAD, 1)[1] + f'''

@wp.kernel
def k(q: Any, out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    {body}
'''
    r = compile_source(text, "t.py")
    assert not any("Cloud" in k.name for k in r.kernels), [k.name for k in r.kernels]


DATA = '''import warp as wp


@wp.struct
class Cloud2:
    positions: wp.array(dtype=wp.vec2)
    masses: wp.array(dtype=wp.float32)


@wp.struct
class Cloud3:
    positions: wp.array(dtype=wp.vec3)
    masses: wp.array(dtype=wp.float32)
'''

UTIL = '''import warp as wp
from .data import *


@wp.func
def mass(c: Cloud2, i: wp.int32):
    return c.masses[i]


@wp.func
def mass(c: Cloud3, i: wp.int32):
    return 3.0 * c.masses[i]
'''

OPS = '''from typing import Any
import warp as wp
from .data import *
from .util import mass


@wp.kernel
def k(q: Any, out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < q.masses.shape[0] and i < out.shape[0]:
        out[i] = mass(q, i)
'''


def test_structs_of_one_module_passed_to_the_funcs_of_another_are_their_own_classes(tmp_path):
    from verikern.frontend import compile_file
    pkg = tmp_path / "proj"
    pkg.mkdir()
    for name, text in (("__init__", ""), ("data", DATA), ("util", UTIL), ("ops", OPS)):
        (pkg / f"{name}.py").write_text(text)
    r = compile_file(str(pkg / "ops.py"))
    assert not r.errors, [e.render() for e in r.errors]
    ks = {k.name: k for k in r.kernels}
    assert list(ks) == ["k[Cloud2]", "k[Cloud3]", "k[...]"], list(ks)
    assert ks["k[Cloud2]"].mir is not None and ks["k[Cloud3]"].mir is not None, \
        [k.error.render() for k in ks.values() if k.error is not None]
    assert [f.name.split("#")[1] for f in ks["k[Cloud2]"].hir.funcs] != \
        [f.name.split("#")[1] for f in ks["k[Cloud3]"].hir.funcs]   # each its own overload


def test_the_other_parameters_most_common_typings_are_checked_first_within_the_bound():
    text = CLOUDS.split("@wp.func")[0] + '''

@wp.kernel
def k3(q: Any, a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < q.masses.shape[0] and i < a.shape[0] and i < b.shape[0] and i < out.shape[0]:
        out[i] = q.masses[i] * a[i] + b[i]
'''
    ks = _instances(text)
    compiled = [n for n, k in ks.items() if k.mir is not None]
    assert compiled[:3] == [f"k3[{s}, float32, float32, float32]" for s in ("Cloud2", "Cloud3", "Stray")], compiled
    assert "k3[Cloud3, vec3, vec3, vec3]" in compiled, compiled     # a float times a vec3 is a vec3
    reason = ks["k3[...]"].error.message
    assert "12288 typings of its generic parameters exceed 64" in reason, reason   # 3 structs x 16**3
    assert "only the first 64 typings were checked" in reason, reason
