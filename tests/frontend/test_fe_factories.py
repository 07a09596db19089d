"""Kernel factories (docs/LANGUAGE.md section 1): names captured from enclosing
functions are literal constants (bound once to a literal) or unknown
constants of a type the source shows (hidden `@name` parameters); module
settings rebound under an `if` are unknown constants of their literal's type."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.errors import LaunchError
from verikern.hir.types import F32, I32
from frontend.fe_util import compile_text, first_error, marker_loc

W = "import warp as wp\nimport verikern as vk\n\n"

FACTORY = W + '''
def make(n: int, w):
    k3 = 3
    s = wp.float32(w)

    @wp.kernel
    def body(a: wp.array[float]):
        i = wp.tid()
        a[i] = float(n * k3 + wp.static(k3 * 2)) + s
    return body


def other():
    @wp.kernel
    def body(a: wp.array[int]):
        a[0] = 1
    return body
'''


def test_captures_become_hidden_parameters_and_literals_stay_constants():
    r = compile_text(FACTORY)
    assert not r.all_errors, [e.render() for e in r.all_errors]
    first, second = r.kernels
    assert (first.name, second.name) == ("body", "body")
    assert [(p.name, p.type) for p in first.hir.params[1:]] == [("@n", I32), ("@s", F32)]
    a = np.zeros(2, np.float32)
    vk.launch(first.mir, 2, [a, 5, 0.5])     # every parameter given: @n = 5, @s = 0.5
    assert a.tolist() == [5 * 3 + 6 + 0.5] * 2
    with pytest.raises(LaunchError, match="reads 'n' from the code around it"):
        vk.launch(first.mir, 2, [a])


def test_unreadable_capture_type_is_an_error_at_the_use():
    src = W + "def make(w):\n    @wp.kernel\n    def k(a: wp.array[float]):\n        a[0] = w\n"
    e = first_error(src)
    assert e.rule == "capture-type" and "enclosing function 'make'" in e.message
    assert (e.loc.line, e.loc.col) == marker_loc(src, "w\n")


def test_module_setting_rebound_under_if_is_an_unknown_constant():
    src = W + ("N = 4\nif __name__ == '__main__':\n    N = int(input())\n"
               "@wp.kernel\ndef k(a: wp.array[int]):\n    a[0] = N\n")
    r = compile_text(src)
    assert not r.all_errors
    assert [p.name for p in r.kernels[0].mir.params] == ["a", "@N"]


def test_a_func_name_defined_in_two_factories_is_ambiguous():
    src = W + ("def f1():\n    @wp.func\n    def g(x: float) -> float:\n        return x\n"
               "def f2():\n    @wp.func\n    def g(x: float) -> float:\n        return 2.0 * x\n"
               "    @wp.kernel\n    def k(a: wp.array[float]):\n        a[0] = g(1.0)\n")
    e = first_error(src)
    assert e.rule == "ambiguous-func"
    assert (e.loc.line, e.loc.col) == marker_loc(src, "g(1.0)")


def test_factory_capture_is_proved_for_every_value():
    from verikern.app.prove import prove_source
    import textwrap
    src = W + textwrap.dedent('''
    def make(k: int):
        @wp.kernel
        def guarded(a: wp.array[int]):
            i = wp.tid()
            if i == 0 and k >= 0 and k < a.shape[0]:
                a[k] = 1
        @wp.kernel
        def unguarded(a: wp.array[int]):
            i = wp.tid()
            if i == 0 and k < a.shape[0]:
                a[k] = 1
        return guarded, unguarded
    ''')
    verdicts = {r.kernel: r.status.value for r in prove_source(src, "f.py")}
    assert verdicts == {"guarded": "proved", "unguarded": "failed"}


def test_codegen_options_are_accepted_and_fast_math_is_read():
    src = W + ('@wp.kernel(launch_bounds=64, cluster_dim=2, enable_backward=False, '
               'module="unique", module_options={"fast_math": True})\n'
               "def k(a: wp.array[float]):\n    a[0] = 1.0\n"
               "@wp.kernel(grid_stride=True)\ndef j(a: wp.array[float]):\n    a[0] = 1.0\n")
    r = compile_text(src)
    assert not r.all_errors
    assert r.kernel("k").mir.fast_math is True and r.kernel("j").mir.fast_math is False
    bad = W + "@wp.kernel(colour=1)\ndef k(a: wp.array[float]):\n    pass\n"
    e = first_error(bad)
    assert e.rule == "decorator-args" and (e.loc.line, e.loc.col) == marker_loc(bad, "1)")


def test_kernels_built_in_methods():
    src = W + '''
class TestThing:
    SCALE = 3

    def test_scale(self, n: int):
        @wp.kernel
        def k(a: wp.array[int]):
            a[0] = n * 2
        return k
'''
    r = compile_text(src)
    assert not r.all_errors, [e.render() for e in r.all_errors]
    assert [p.name for p in r.kernels[0].mir.params] == ["a", "@n"]
