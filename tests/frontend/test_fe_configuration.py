"""Configuration choices (verikern/frontend/scan/configuration.py and
frontend/configured.py): a module-level name whose every binding reads, from
source, to one of a few Warp types is compiled once per alternative, the
default first; kernels that do not depend on it stay one kernel; what cannot
be read stays a located refusal; a buggy alternative fails the kernel, and
configurations beyond the limit are `unknown`, never proved."""
from __future__ import annotations

import textwrap

import pytest

from verikern.app.prove import prove_file, prove_source
from verikern.frontend import compile_file, compile_source
from verikern.frontend.scan.configuration import MAX_CONFIGURATIONS
from verikern.proofs.obligations import KernelStatus
from shared_helpers import write_package

TYPE_CONFIG = '''
import os
import warp as wp

_PRECISION_ALIASES = {"half": wp.float16, "single": wp.float32, "double": wp.float64}


def _resolve_precision(value):
    if value is None:
        return wp.float32
    key = value.strip().lower()
    if key == "":
        return wp.float32
    if key not in _PRECISION_ALIASES:
        raise ValueError(value)
    return _PRECISION_ALIASES[key]


scalar_t = _resolve_precision(os.getenv("PKG_PRECISION"))


def _load_preconfig():
    return None


_pre = _load_preconfig()
if _pre is not None:
    scalar_t = _resolve_precision(str(_pre))

__all__ = ["scalar_t"]
'''

VEC1 = '''
import warp as wp
from warp.types import vector


class vec1f(vector(length=1, dtype=wp.float32)):
    pass


class vec1d(vector(length=1, dtype=wp.float64)):
    pass


class vec1h(vector(length=1, dtype=wp.float16)):
    """Warp's own way to name a vector type: the class is that type."""
'''

KERNELS = '''
import warp as wp
from .type_config import *
from .vec1 import vec1f, vec1d, vec1h

if scalar_t == wp.float32:
    _vec1_t, _WIDTH = vec1f, 1
elif scalar_t == wp.float64:
    _vec1_t, _WIDTH = vec1d, 1
elif scalar_t == wp.float16:
    _vec1_t, _WIDTH = vec1h, 1
else:
    raise ValueError(scalar_t)


@wp.kernel
def wrap(x: wp.array(dtype=scalar_t), out: wp.array(dtype=_vec1_t)):
    i = wp.tid()
    if i < x.shape[0] and i < out.shape[0]:
        out[i] = _vec1_t(x[i] * scalar_t(_WIDTH))


@wp.kernel
def count(flags: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if i < flags.shape[0] and out.shape[0] > 0:
        wp.atomic_add(out, 0, flags[i])
'''


def _package(tmp_path, kernels=KERNELS, type_config=TYPE_CONFIG):
    return write_package(tmp_path, "pkg", {"type_config": type_config, "vec1": VEC1, "kernels": kernels})


def _verdicts(reports):
    return {r.kernel: r.status for r in reports}


def test_a_package_choice_gives_one_instance_per_precision_default_first(tmp_path):
    pkg = _package(tmp_path)
    module = compile_file(pkg / "kernels.py")
    assert module.kernel_names == ["wrap{scalar_t=float32}", "wrap{scalar_t=float16}",
                                   "wrap{scalar_t=float64}", "count"]
    assert all(k.ok for k in module.kernels), [k.error for k in module.kernels]
    # the branch of `if scalar_t == ...` the configuration takes: the vector type of its precision
    wrap64 = module.kernel("wrap{scalar_t=float64}").mir
    assert wrap64.name == "wrap__scalar_t_float64"
    for label in ("float32", "float16", "float64"):
        x_t, out_t = (p.type.dtype for p in module.kernel(f"wrap{{scalar_t={label}}}").hir.params)
        assert str(x_t) == label and out_t.length == 1 and str(out_t.dtype) == label
    assert _verdicts(prove_file(pkg / "kernels.py")) == {
        "wrap{scalar_t=float32}": KernelStatus.PROVED, "wrap{scalar_t=float16}": KernelStatus.PROVED,
        "wrap{scalar_t=float64}": KernelStatus.PROVED, "count": KernelStatus.PROVED}
    # `--kernel wrap` selects every configuration's instance
    assert len(prove_file(pkg / "kernels.py", kernel="wrap")) == 3


def test_a_buggy_alternative_fails_the_kernel_never_proved(tmp_path):
    # only half precision takes a width of 2, and the guard does not cover it
    buggy = KERNELS.replace("_vec1_t, _WIDTH = vec1h, 1", "_vec1_t, _WIDTH = vec1h, 2").replace(
        "out[i] = _vec1_t(x[i] * scalar_t(_WIDTH))", "out[i] = _vec1_t(x[i * _WIDTH] * scalar_t(_WIDTH))")
    pkg = _package(tmp_path, kernels=buggy)
    verdicts = _verdicts(prove_file(pkg / "kernels.py", kernel="wrap"))
    assert verdicts == {"wrap{scalar_t=float32}": KernelStatus.PROVED,
                        "wrap{scalar_t=float16}": KernelStatus.FAILED,
                        "wrap{scalar_t=float64}": KernelStatus.PROVED}


def test_an_unreadable_binding_stays_a_located_refusal(tmp_path):
    # a third binding the source cannot read (a computed attribute): no choice, no instance
    unreadable = TYPE_CONFIG.replace('__all__ = ["scalar_t"]', 'if os.getenv("X"):\n'
                                     '    scalar_t = getattr(wp, os.getenv("X"))\n__all__ = ["scalar_t"]')
    pkg = _package(tmp_path, type_config=unreadable)
    module = compile_file(pkg / "kernels.py")
    assert "count" in module.kernel_names and not any("{" in n for n in module.kernel_names)
    rendered = " ".join(e.render() for e in module.all_errors)
    assert "not one type" in rendered and "PKG_PRECISION" in rendered


def test_the_default_is_the_binding_with_the_environment_unset():
    source = textwrap.dedent('''
        import os
        import warp as wp

        _BY_NAME = {"f16": wp.float16, "f32": wp.float32, "f64": wp.float64}


        def _pick(value):
            if value is not None:
                return _BY_NAME[value]
            return wp.float64


        real = _pick(os.environ.get("REAL"))


        @wp.kernel
        def half(x: wp.array(dtype=real)):
            i = wp.tid()
            if i < x.shape[0]:
                x[i] = x[i] * real(0.5)
        ''')
    assert compile_source(source, "k.py").kernel_names == [
        "half{real=float64}", "half{real=float16}", "half{real=float32}"]


def test_more_configurations_than_compiled_leave_an_unknown_remainder():
    # three choices of two types each: 8 configurations, over the limit
    choices = "".join(f'''
def _pick{n}(value):
    if value is None:
        return wp.float32
    return wp.float64


t{n} = _pick{n}(os.getenv("T{n}"))
''' for n in range(3))
    source = "import os\nimport warp as wp\n" + choices + '''

@wp.kernel
def add(a: wp.array(dtype=t0), b: wp.array(dtype=t1), c: wp.array(dtype=t2)):
    i = wp.tid()
    if i < a.shape[0] and i < b.shape[0] and i < c.shape[0]:
        c[i] = t2(a[i]) + t2(b[i])
'''
    assert 2 ** 3 > MAX_CONFIGURATIONS
    module = compile_source(source, "k.py")
    assert module.kernel_names[0] == "add{t0=float32,t1=float32,t2=float32}"
    assert module.kernel_names[-1] == "add{...}" and len(module.kernel_names) == MAX_CONFIGURATIONS + 1
    verdicts = _verdicts(prove_source(source, "k.py"))
    assert verdicts["add{...}"] is KernelStatus.UNKNOWN
    assert all(v is KernelStatus.PROVED for k, v in verdicts.items() if k != "add{...}")


SINGLE = '''
import contextlib
import os
import warp as wp


def _pick(value):
    if value is None:
        return wp.float32
    return wp.float64


scalar_t = _pick(os.getenv("P"))
OTHER


@wp.kernel
def k(x: wp.array(dtype=scalar_t)):
    i = wp.tid()
    if i < x.shape[0]:
        x[i] = x[i] + x[i]
'''


@pytest.mark.parametrize("other", [
    "",                                                          # a choice: the control
    "scalar_t = getattr(wp, os.getenv('Q', 'float32'))",         # a computed type
    "for scalar_t in (wp.float16,):\n    pass",                  # a loop variable
    "with contextlib.nullcontext(wp.float16) as scalar_t:\n    pass",
    "try:\n    pass\nexcept ImportError as scalar_t:\n    pass",
    "if (scalar_t := wp.float16):\n    pass",
    "from numpy import float16 as scalar_t",
])
def test_only_bindings_the_source_says_make_a_choice(other):
    module = compile_source(SINGLE.replace("OTHER", other), "k.py")
    if not other:
        assert module.kernel_names == ["k{scalar_t=float32}", "k{scalar_t=float64}"]
        return
    assert module.kernel_names == ["k"]
    assert module.kernel("k").error is not None and module.kernel("k").error.rule in ("annotation", "closure")


def test_a_kernel_whose_default_reaches_no_mir_is_compiled_once():
    # `undefined_helper` exists in no configuration: the default's error and an unknown
    # remainder, the other configurations never compiled (nothing there could be proved)
    source = SINGLE.replace("OTHER", "").replace("x[i] = x[i] + x[i]", "x[i] = undefined_helper(x[i])")
    module = compile_source(source, "k.py")
    assert module.kernel_names == ["k{scalar_t=float32}", "k{...}"]
    assert module.kernel("k{scalar_t=float32}").error is not None
    rest = module.kernel("k{...}")
    assert rest.unknown and "reached no MIR" in rest.error.render()
    verdicts = _verdicts(prove_source(source, "k.py"))
    assert verdicts == {"k{scalar_t=float32}": KernelStatus.ERROR, "k{...}": KernelStatus.UNKNOWN}


def test_a_suggestion_is_reproved_under_its_instance_configuration_alone(monkeypatch, tmp_path):
    from verikern.frontend import driver
    from verikern.frontend.scan.configuration import configuration_label
    source = SINGLE.replace("OTHER", "").replace("    if i < x.shape[0]:\n        x[i] = x[i] + x[i]",
                                                  "    x[i] = x[i] + x[i]")
    for name in ("k{scalar_t=float64}", "k__scalar_t_float64"):     # a report's name, a MIR name
        assert compile_source(source, "k.py", configuration=name).kernel_names == [
            "k{scalar_t=float64}", "k{...}"]
    read = driver._read
    seen: list[str] = []

    def recording(tree, filename, text, project_file, configuration):
        seen.append(configuration_label(configuration) if configuration else "as written")
        return read(tree, filename, text, project_file, configuration)

    monkeypatch.setattr(driver, "_read", recording)
    (tmp_path / "k.py").write_text(source)
    reports = prove_file(tmp_path / "k.py", suggest=True)
    assert {r.kernel: (r.status, r.proved_under_suggestion) for r in reports} == {
        "k{scalar_t=float32}": (KernelStatus.FAILED, True), "k{scalar_t=float64}": (KernelStatus.FAILED, True)}
    # the proof: as written, then both configurations; each re-proof: its own configuration only
    assert seen[:3] == ["as written", "scalar_t=float32", "scalar_t=float64"]
    assert sorted(seen[3:]) == ["as written", "as written", "scalar_t=float32", "scalar_t=float64"]
