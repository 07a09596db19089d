"""Typed parameter origins: the frontend says what the user passes for each
MIR parameter (ScalarParam.origin / user_name), the MIR text round-trips it,
and no consumer recovers it from the MIR names any more.

References: hand-written source whose parameters are known by construction,
the launch API (a vector argument and a captured constant reach the right
MIR parameters, checked against numpy), and the package source itself (the
grep below fails if name parsing comes back)."""
from __future__ import annotations

import importlib.util
import re
import textwrap
from pathlib import Path

import numpy as np

import verikern as vk
from verikern.frontend import compile_source
from verikern.mir import format_kernel
from verikern.mir.nodes import ArrayRef, ParamOrigin, ScalarParam
from verikern.mir.params import captured_params, printed_param, user_params
from verikern.mir.parser import parse_kernel
from verikern.runtime import prepare_launch

ROOT = Path(__file__).resolve().parents[2]

FACTORY = textwrap.dedent("""
    import warp as wp


    def make(scale: int):
        width = 2 * scale + 1

        @wp.kernel
        def k(x: wp.array(dtype=float), c: wp.vec3, n: int, out: wp.array(dtype=float)):
            i = wp.tid()
            if i < n and i < out.shape[0] and i < x.shape[0]:
                out[i] = x[i] * c[1] + float(width)

        return k
""")


def _kernel():
    (k,) = compile_source(FACTORY, "factory_origins.py").kernels
    return k.mir


def test_the_frontend_types_every_parameter_origin():
    k = _kernel()
    seen = [(p.name, p.origin, p.user_name) if isinstance(p, ScalarParam) else (p.name, "array")
            for p in k.params]
    assert seen == [("x", "array"),
                    ("c[0]", ParamOrigin.COMPONENT, "c"), ("c[1]", ParamOrigin.COMPONENT, "c"),
                    ("c[2]", ParamOrigin.COMPONENT, "c"),
                    ("n", ParamOrigin.USER, "n"), ("out", "array"),
                    ("@width", ParamOrigin.CAPTURED, "width")]


def test_user_params_group_components_and_leave_out_captures():
    k = _kernel()
    groups = [(u.name, [p.name for p in u.mir], u.is_components) for u in user_params(k)]
    assert groups == [("x", ["x"], False), ("c", ["c[0]", "c[1]", "c[2]"], True),
                      ("n", ["n"], False), ("out", ["out"], False)]
    assert [p.name for p in captured_params(k)] == ["@width"]
    assert all(isinstance(u.mir[0], ArrayRef) for u in user_params(k) if u.name in ("x", "out"))


def test_the_mir_text_round_trips_the_origins():
    """A captured constant round-trips through the text (a vector parameter's
    `c[0]` is no name the text grammar reads; `printed_param` maps it)."""
    (k,) = compile_source(FACTORY.replace("c: wp.vec3, ", "").replace("c[1]", "2.0"),
                          "factory_origins.py").kernels
    back = parse_kernel(format_kernel(k.mir))
    assert back.params == k.mir.params
    assert [(p.origin, p.user_name) for p in back.scalar_params] == \
        [(ParamOrigin.USER, "n"), (ParamOrigin.CAPTURED, "width")]
    v = back.scalar_params[0].value
    assert printed_param("c[2]", v) == ScalarParam("c[2]", v, ParamOrigin.COMPONENT, "c")


def test_a_parameter_named_like_a_component_is_still_the_users():
    """Origins come from the frontend, not from the name: a MIR parameter the
    user passes keeps USER even when a hand-made MIR names it `v[0]`."""
    p = ScalarParam("v[0]", _kernel().scalar_params[0].value)
    assert (p.origin, p.user_name) == (ParamOrigin.USER, "v[0]")


def test_a_launch_expands_a_vector_and_reads_a_capture_by_origin(tmp_path):
    """vk's launch: the vector argument lands on its three components, the
    captured width on `@width` (read from the factory's closure), in MIR
    order; the simulator's result matches numpy's x * c[1] + width."""
    path = tmp_path / "factory_origins.py"
    path.write_text(FACTORY.replace("import warp as wp", "import verikern as wp"))
    spec = importlib.util.spec_from_file_location("factory_origins", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    handle = module.make(3)
    x, out = np.arange(4, dtype=np.float32), np.zeros(4, np.float32)
    k, _cfg, _arrays, scalars = prepare_launch(handle, 4, [x, (1.0, 2.0, 3.0), 4, out])
    assert [p.name for p in k.params] == ["x", "c[0]", "c[1]", "c[2]", "n", "out", "@width"]
    assert [scalars[n] for n in ("c[0]", "c[1]", "c[2]", "n", "@width")] == [1.0, 2.0, 3.0, 4, 7]
    vk.launch(handle, 4, inputs=[x, (1.0, 2.0, 3.0), 4, out], device="cpu")
    np.testing.assert_array_equal(out, x * 2.0 + 7.0)


#: Files that may still read an origin-like spelling from a name, and why:
#: the frontend makes the spellings; the MIR parser reads its own text form;
#: the others handle kernel names of generic instances (`k[int8]`), SSA value
#: names or report keys, never parameters.
NAME_SPELLING_OWNERS = {
    "verikern/frontend",                    # creates `@name` / `v[i]` (lower.py reads its own prefix)
    "verikern/mir/params.py",               # printed_param: MIR text carries only the MIR name
    "verikern/app/prove.py",                # --kernel k selects the generic instances k[...]
    "verikern/app/kernel_names.py",         # the definition a generic instance k[...] needs
    "proofs/reporting",                     # kernel names of generic instances
    "proofs/deciding/prover_messages.py",   # SSA value names in messages (`%@width.0` shows as width)
    "proofs/obligations.py",                # a witness's scalars are keyed by MIR name in reports
}
_PARSING = re.compile(r"""split\(\s*["']\[["']|startswith\(\s*["']@["']|lstrip\(\s*["']@["']"""
                      r"""|["']\[["']\s+in\s+\w+\.name|\.name\[1:\]|removeprefix\(\s*["']@["']""")


def test_no_consumer_recovers_parameter_origins_from_names():
    offenders = []
    for folder in ("verikern", "backends", "encoders", "proofs"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if "selftest_corpus" in rel or any(rel == o or rel.startswith(o + "/")
                                               for o in NAME_SPELLING_OWNERS):
                continue
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if _PARSING.search(line):
                    offenders.append(f"{rel}:{n}: {line.strip()}")
    assert offenders == [], "read ScalarParam.origin / user_name (verikern.mir.params) instead:\n" \
        + "\n".join(offenders)


def test_the_grep_sees_the_old_spellings():
    """The pattern above is not vacuous: it matches each way the name was parsed."""
    for old in ('base = p.name.split("[", 1)[0]', 'if not g[0].startswith("@")',
                'base = self.name.lstrip("@")', 'if "[" in p.name and out',
                'out.append(_lookup_captured(fn, n.name[1:], set()))'):
        assert _PARSING.search(old), old
