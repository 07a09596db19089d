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


# ------------------------------------------------------------------ relations and binding forms
RELATED = W + '''
def make(radius: int):
    width = 2 * radius + 1

    @wp.kernel
    def exact(x: wp.array[float], out: wp.array[float]):
        i = wp.tid()
        if i < x.shape[0] and i < out.shape[0]:
            out[i] = x[i + width - 2 * radius - 1]

    @wp.kernel
    def one_past(x: wp.array[float], out: wp.array[float]):
        i = wp.tid()
        if i < x.shape[0] and i < out.shape[0]:
            out[i] = x[i + width - 2 * radius]

    return exact, one_past
'''


def _write_module(tmp_path, name, text):
    import importlib.util
    import sys

    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_a_relation_the_factory_computes_is_kept():
    """`width = 2 * radius + 1`: the kernel assumes exactly that (as
    independent unknowns `x[i + width - 2*radius - 1]` could be anywhere)."""
    from verikern.app.prove import prove_source

    reports = {r.kernel: r for r in prove_source(RELATED, "related.py")}
    assert reports["exact"].status.value == "proved"
    bad = reports["one_past"]
    assert bad.status.value == "failed"
    (ob,) = [o for o in bad.obligations if o.status.value == "failed"]
    assert ob.confirmed is True
    cex = ob.counterexample
    assert cex.scalars["@width"] == 2 * cex.scalars["@radius"] + 1     # a launch there is
    assert reports["exact"].scope.contracts[0].text == "width == 2 * radius + 1"


def test_no_relation_is_assumed_that_int64_arithmetic_could_wrap_or_python_rounds_otherwise():
    src = W + '''
def make(a: int, b: int):
    big = a * a * a * b
    floor: int = a // 3
    rem: int = a % 3

    @wp.kernel
    def k(x: wp.array[int]):
        x[0] = big + floor + rem + a + b
    return k
'''
    r = compile_text(src)
    assert not r.all_errors, [e.render() for e in r.all_errors]
    from verikern.mir.nodes import Requires
    assert not [ins for _, ins in r.kernels[0].mir.instructions() if isinstance(ins, Requires)]


def test_a_wrapped_value_no_launch_can_pass_is_not_admitted():
    """The relation is exact (int64): the issue's suggestion `width <=
    x.shape[0] and x.shape[0] == radius` (2*radius + 1 <= radius: radius < 0
    = a shape) admits no launch, so it is never suggested."""
    from verikern.proofs.deciding.example_launch import example_launch

    src = RELATED.replace("    width = 2 * radius + 1\n", "    width = 2 * radius + 1\n\n"
                          "    @vk.requires(lambda x: width <= x.shape[0] and x.shape[0] == radius)")
    r = compile_text(src)
    assert not r.all_errors, [e.render() for e in r.all_errors]
    assert example_launch(r.kernels[0].mir) is None
    # without the relation (width a free int32 unknown) a launch seemed admitted
    free = src.replace("width = 2 * radius + 1", "width = wp.int32(int(str(radius)))")
    r = compile_text(free)
    assert example_launch(r.kernels[0].mir) is not None


def test_an_annotated_capture_and_an_int32_cast_capture_prove_and_launch(tmp_path):
    """`width: int = 2 * radius + 1` is read as int (no hint to annotate it);
    a capture bound with `wp.int32(...)` (the hint's other advice) launches."""
    from verikern.app.prove import prove_source

    src = W + '''
def make_annotated(radius: int):
    width: int = 2 * radius + 1

    @wp.kernel
    def annotated(x: wp.array[float], out: wp.array[float]):
        i = wp.tid()
        if i < width and i < x.shape[0] and i < out.shape[0]:
            out[i] = x[i]
    return annotated


def make_cast(radius: int):
    width = wp.int32(2 * radius + 1)

    @wp.kernel
    def cast(x: wp.array[float], out: wp.array[float]):
        i = wp.tid()
        if i < width and i < x.shape[0] and i < out.shape[0]:
            out[i] = x[i]
    return cast
'''
    verdicts = {r.kernel: r.status.value for r in prove_source(src, "widths.py")}
    assert verdicts == {"annotated": "proved", "cast": "proved"}
    module = _write_module(tmp_path, "widths_factories", src)
    for make in (module.make_annotated, module.make_cast):
        kernel = make(2)                  # width 5
        x = np.arange(8, dtype=np.float32)
        out = np.zeros(8, np.float32)
        vk.check_launch(kernel, 8, [x, out])
        vk.launch(kernel, 8, inputs=[x, out], device="cpu")
        assert out.tolist() == [0, 1, 2, 3, 4, 0, 0, 0]


def test_the_relation_kernels_run_with_the_factory_values(tmp_path):
    module = _write_module(tmp_path, "related_factories", RELATED)
    exact, one_past = module.make(3)
    x = np.arange(6, dtype=np.float32)
    out = np.zeros(6, np.float32)
    vk.check_launch(exact, 6, [x, out])            # the relation holds by construction
    vk.launch(exact, 6, inputs=[x, out], device="cpu")
    assert out.tolist() == x.tolist()
    with pytest.raises(Exception, match=r"out-of-bounds access to global array x\[6\]"):
        vk.launch(one_past, 6, inputs=[x, np.zeros(6, np.float32)], device="cpu")
