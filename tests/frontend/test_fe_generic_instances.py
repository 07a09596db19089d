"""The instances of a generic kernel (frontend/check/generic_kernels.py): declared
overloads, evident launch sites, every scalar typing the body type-checks
with; never fewer instances than Warp can build without an error instance
saying so."""
from __future__ import annotations

import ast

from verikern.frontend import compile_source
from verikern.frontend.check import generic_kernels
from verikern.frontend.check.generic_groups import parameter_groups
from verikern.hir.types import BOOL, F32, I8, I32, VECTOR_TYPES
from frontend.fe_util import compile_text

HEAD = "from typing import Any\n\nimport warp as wp\n\n\n"


def test_a_bare_any_given_an_array_at_a_launch_is_not_confused_with_its_dtype():
    src = HEAD + ("@wp.kernel\ndef k(x: Any, out: wp.array(dtype=float)):\n    out[0] = float(x[0])\n\n\n"
                  "def run():\n    wp.launch(k, 1, inputs=[wp.zeros(4, dtype=float), wp.zeros(1, dtype=float)])\n")
    names = compile_text(src).kernel_names
    assert names[0] == "k[array<float32, 1>]"
    assert "k[float32]" not in names      # float(x[0]) needs an indexable x: scalars are refused
    assert names[-1] == "k[...]"          # arrays of other dtypes and ndims: not enumerated


def test_a_scalar_only_body_has_one_instance_per_scalar_type_and_no_error():
    src = HEAD + ("@wp.kernel\ndef keep_positive(a: wp.array(dtype=Any), flags: wp.array(dtype=int)):\n"
                  "    i = wp.tid()\n    if i < a.shape[0] and i < flags.shape[0]:\n"
                  "        if a[i] > a[i] - a[i]:\n            flags[i] = 1\n")
    r = compile_text(src)
    assert not r.all_errors, [e.render() for e in r.all_errors]
    # bool has no `-`; a vector has no `>`: neither is an instance Warp can build
    assert [n.split("[")[1].rstrip("]") for n in r.kernel_names] == [
        "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64"]
    assert {k.mir.name for k in r.kernels} == {
        "keep_positive__" + n.split("[")[1].rstrip("]") for n in r.kernel_names}


def test_too_many_typings_is_an_error_instance_beside_the_declared_ones():
    src = HEAD + ("@wp.kernel\ndef mix(a: wp.array(dtype=Any), b: Any, c: wp.array(dtype=Any)):\n"
                  "    c[0] = a[0] + b\n\n\n"
                  "wp.overload(mix, [wp.array(dtype=float), float, wp.array(dtype=float)])\n")
    r = compile_text(src)
    assert r.kernel_names == ["mix[float32, float32, float32]", "mix[...]"]
    e = r.kernel("mix[...]").error
    assert e.rule == "generic-kernel" and "at most 289" in e.message and e.loc.line == 7


def test_a_generic_func_called_from_a_generic_kernel_is_specialized_per_instance():
    src = HEAD + ("@wp.func\ndef twice(v: Any):\n    return v + v\n\n\n"
                  "@wp.kernel\ndef k(a: wp.array(dtype=Any), out: wp.array(dtype=int)):\n"
                  "    out[0] = int(twice(a[0]))\n")
    r = compile_text(src)
    assert "k[int8]" in r.kernel_names and r.kernel("k[int8]").error is None


def _typings(src):
    return [n.split("[", 1)[1].rstrip("]") for n in compile_text(HEAD + src).kernel_names]


def test_arithmetic_with_a_literal_keeps_warp_s_literal_type():
    """Warp keeps a literal's own type (int 1 is int32, 1.0 is float32) and
    refuses `k + 1` for an int8 or float64 `k` ("Input types must be the
    same"): only the int32 typing is built, and verikern proves only that
    one (tests/warp_compat checks the rule against real Warp). A comparison
    with a literal does not restrict (`k >= 0` compiles for any numeric k)."""
    body = ("@wp.kernel\ndef bump(keys: wp.array(dtype=Any), out: wp.array(dtype=int)):\n"
            "    i = wp.tid()\n    if i < keys.shape[0] and i < out.shape[0]:\n"
            "        k = keys[i]\n        {line}\n")
    assert _typings(body.format(line="out[i] = int(k + 1)")) == ["int32"]
    assert _typings(body.format(line="out[i] = int(k * 2.0)")) == ["float32"]
    assert _typings(body.format(line="out[i] = int(wp.min(k, 0))")) == ["int32"]
    both = _typings(body.format(line="out[i] = int(k + k)"))
    assert "int8" in both and "float64" in both
    assert _typings(body.format(line="if k >= 0:\n            out[i] = 1")) == both


def test_a_non_generic_kernel_keeps_the_lenient_literal_rule():
    """Outside the typings of a generic kernel, a literal still takes the
    other operand's type (docs/LANGUAGE.md section 2): `x[i] + 1` on int64."""
    r = compile_text(HEAD + "@wp.kernel\ndef inc(x: wp.array(dtype=wp.int64)):\n    i = wp.tid()\n"
                     "    if i < x.shape[0]:\n        x[i] = x[i] + 1\n")
    assert [k.name for k in r.kernels] == ["inc"] and r.kernels[0].error is None


INDEPENDENT = '''from typing import Any

import warp as wp


@wp.kernel
def two_jobs(keys: wp.array(dtype=Any), a: wp.array(dtype=Any), b: wp.array(dtype=Any),
             flags: wp.array(dtype=int)):
    i = wp.tid()
    if i < keys.shape[0] and i < flags.shape[0]:
        flags[i] = int(keys[i])
    if i < a.shape[0] and i < b.shape[0]:
        s = a[i]
        b[i] = s + s
'''


def _names_with(monkeypatch, text, cap):
    monkeypatch.setattr(generic_kernels, "MAX_ASSIGNMENTS", cap)
    return compile_source(text, "g.py").kernel_names


def test_independent_parameters_find_exactly_the_typings_of_the_whole_cross_product(monkeypatch):
    """`keys` shares no statement with `a` and `b`: its typings are found on their own.
    The reference is the whole cross product, tried one by one (a cap above it)."""
    monkeypatch.setattr(generic_kernels, "_SCALARS", (BOOL, I8, I32, F32))
    monkeypatch.setattr(generic_kernels, "_PROBES", (VECTOR_TYPES["vec3"],))
    exhaustive = _names_with(monkeypatch, INDEPENDENT, 10_000)        # 5 ** 3 = 125 typings tried
    factorised = _names_with(monkeypatch, INDEPENDENT, 100)
    assert factorised == exhaustive
    assert "two_jobs[int8, int32, int32]" in factorised and "two_jobs[float32, bool, bool]" not in factorised
    assert factorised[-1] == "two_jobs[...]"    # vec3 a and b: not enumerated


def test_linked_parameters_over_the_cap_stay_unknown_naming_them(monkeypatch):
    linked = INDEPENDENT.replace("b[i] = s + s", "b[i] = s + s\n        flags[i] = int(keys[i] + s)")
    monkeypatch.setattr(generic_kernels, "_SCALARS", (BOOL, I8, I32, F32))
    monkeypatch.setattr(generic_kernels, "_PROBES", (VECTOR_TYPES["vec3"],))
    monkeypatch.setattr(generic_kernels, "MAX_ASSIGNMENTS", 100)
    r = compile_source(linked, "g.py")
    (more,) = [k for k in r.kernels if k.name == "two_jobs[...]"]
    assert more.unknown and "its parameters keys, a, b depend on each other (125 assignments" in more.error.message
    assert parameter_groups(ast.parse(linked).body[2], ["keys", "a", "b"]) == [["keys", "a", "b"]]
    assert parameter_groups(ast.parse(INDEPENDENT).body[2], ["keys", "a", "b"]) == [["keys"], ["a", "b"]]


NO_TYPING = HEAD + '''@wp.kernel
def never(a: wp.array(dtype=Any), out: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    out[i] = wp.cross(a[i], a[i])
'''


def test_a_generic_kernel_no_typing_of_which_type_checks_is_an_error_not_hidden():
    (k,) = compile_text(NO_TYPING).kernels
    assert k.name == "never[...]" and k.error is not None and not k.unknown
    assert "no typing of the generic kernel 'never' type-checks" in k.error.message
    assert "first typing tried was refused with" in k.error.message


RAND = HEAD + '''@wp.kernel
def keep(seed: wp.array(dtype=wp.uint32), p: float, mask: wp.array(dtype=Any)):
    i = wp.tid()
    state = wp.rand_init(wp.int32(seed[0]), i)
    if wp.randf(state) >= p:
        mask[i] = mask.dtype(1.0)
'''


def test_the_random_number_rewriting_does_not_fall_under_warps_literal_rule():
    """warp-nn's dropout mask: wp.rand_init's own uint32 arithmetic is no literal of the user's."""
    names = compile_text(RAND).kernel_names
    assert names[:3] == ["keep[bool]", "keep[int8]", "keep[int16]"] and "keep[float64]" in names


def test_a_body_only_integer_vectors_build_still_has_its_remainder():
    """`a[i] & m` builds in Warp 1.19 with vec3i (componentwise bit_and), not with
    any float vector: the probes include an integer vector, and an operation
    Warp builds on vectors that verikern does not model is no type error, so
    that typing is never dropped as one Warp refuses (it was: no `mask[...]`,
    the nine scalar instances alone, a kernel proved with vec3i unchecked)."""
    src = HEAD + ("@wp.kernel\ndef mask(a: wp.array(dtype=Any), m: Any):\n"
                  "    i = wp.tid()\n    if i < a.shape[0]:\n        a[i] = a[i] & m\n")
    r = compile_text(src)
    assert r.kernel_names[-1] == "mask[...]"
    assert "mask[vec3i, vec3i]" in r.kernel("mask[...]").error.message
    assert "mask[int32, int32]" in r.kernel_names


def test_bitwise_and_modulo_of_vectors_are_located_errors_outside_the_type_rules():
    for body, sym in (("a[i] & m", "&"), ("a[i] << m", "<<"), ("a[i] % m", "%")):
        src = HEAD + ("@wp.kernel\ndef k(a: wp.array(dtype=wp.vec3i), m: wp.vec3i):\n"
                      f"    i = wp.tid()\n    a[i] = {body}\n")
        e = compile_source(src, "k.py").kernel("k").error
        assert e is not None and e.rule == "unsupported-vector-op", body
        assert e.rule not in generic_kernels.TYPE_RULES
        assert f"`{sym}` of two vec3i values" in e.message and e.loc.line == 9
    src = HEAD + ("@wp.kernel\ndef k(a: wp.array(dtype=wp.vec3i)):\n"
                  "    i = wp.tid()\n    a[i] = ~a[i]\n")
    e = compile_source(src, "k.py").kernel("k").error
    assert e.rule == "unsupported-vector-op" and e.loc.line == 9
    # float vectors have no bitwise operators in Warp either: still a type error
    src = HEAD + ("@wp.kernel\ndef k(a: wp.array(dtype=wp.vec3), m: wp.vec3):\n"
                  "    i = wp.tid()\n    a[i] = a[i] & m\n")
    assert compile_source(src, "k.py").kernel("k").error.rule in generic_kernels.TYPE_RULES
