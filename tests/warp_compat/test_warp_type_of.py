"""`type(x)(...)` and `x.dtype(...)`: a value converted to the type of another
(real projects write `type(mass)(0.0)`, `type(pos[0])(d)`, `x.dtype(1.0)`,
`a.dtype(0.5)` in generic code). Real Warp on its CPU device is the
reference: the same kernel file runs under both and gives the same results,
and the spellings Warp refuses (a scalar type called with no value) are
errors in verikern too."""
from __future__ import annotations

import json

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_source
from verikern.frontend import compile_source
from shared_helpers import CORPUS
from warp_compat.compat_util import warp_module_from_text

wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")

SOURCE = '''from typing import Any

import warp as wp


@wp.kernel
def typed(x: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3),
          out: wp.array(dtype=wp.float64), outv: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    s = x[i]
    vv = v[i]
    zero = type(s)(0.0)
    one = type(s)(1)                 # an int literal converted to float64
    half = s.dtype(0.5)              # a scalar's own type
    two = x.dtype(2.0)               # an array's element type
    c = type(vv[0])(s)               # a vector component's type: float32
    q = type(x[i])(0.25) + type(x[i])(type(v[i][1])(1.5))   # array elements: addresses, v[i] loaded
    out[i] = zero + one + half * s + two * s + q
    outv[i] = type(vv)() + vv * c + type(vv)(c)


@wp.kernel
def generic(x: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    s = x[i]
    if s > type(s)(0):
        out[i] = s - type(s)(3)
    else:
        out[i] = x.dtype(7)
'''


def test_type_of_and_dtype_convert_as_warp_does(warp_cpu, tmp_path):
    module = warp_module_from_text(tmp_path, SOURCE, "verikern_type_of_typed")
    ours = compile_source(SOURCE, "type_of.py")
    assert not ours.all_errors, [e.render() for e in ours.all_errors]
    rng = np.random.default_rng(3)
    x = rng.uniform(-8, 8, 16)
    v = rng.uniform(-2, 2, (16, 3)).astype(np.float32)
    out, outv = np.zeros(16), np.zeros((16, 3), np.float32)
    vk.launch(ours.kernel("typed").mir, 16, [x, v, out, outv])
    w_out, w_outv = wp.zeros(16, dtype=wp.float64, device="cpu"), wp.zeros(16, dtype=wp.vec3, device="cpu")
    wp.launch(module.typed, dim=16, device="cpu", inputs=[
        wp.array(x, dtype=wp.float64, device="cpu"), wp.array(v, dtype=wp.vec3, device="cpu"), w_out, w_outv])
    np.testing.assert_array_equal(out, w_out.numpy())
    np.testing.assert_array_equal(outv, w_outv.numpy())


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.float32, np.float64])
def test_a_generic_kernel_converts_to_each_instance_type_as_warp_does(warp_cpu, tmp_path, dtype):
    module = warp_module_from_text(tmp_path, SOURCE, f"verikern_type_of_generic_{np.dtype(dtype).name}")
    ours = compile_source(SOURCE, "type_of.py")
    name = np.dtype(dtype).name
    instance = next(k for k in ours.kernels if k.name.startswith("generic[") and name in k.name)
    assert instance.ok, instance.error
    x = np.array([5, 0, 1, 3, 100, 2], dtype=dtype)
    if np.dtype(dtype).kind != "u":
        x[1] = -4                        # the else branch
    out = np.zeros_like(x)
    vk.launch(instance.mir, len(x), [x, out])
    theirs = wp.zeros(len(x), dtype=wp.dtype_from_numpy(dtype), device="cpu")
    wp.launch(module.generic, dim=len(x), device="cpu",
              inputs=[wp.array(x, dtype=wp.dtype_from_numpy(dtype), device="cpu"), theirs])
    np.testing.assert_array_equal(out, theirs.numpy())


def test_the_first_operand_of_and_and_the_test_of_a_conditional_are_always_evaluated():
    for expr in ("s if type(x[i + 1])(1.0) > s and s > 0.0 else s", "s if type(x[i + 1])(1.0) > s else s"):
        (r,) = prove_source(REFUSED.format(expr=expr), "k.py", suggest=False)
        failed = [(o.kind.value, o.loc.line, o.loc.col) for o in r.obligations if o.status.value == "failed"]
        assert ("bounds", 8, 24) in failed, (expr, failed)      # x[i + 1], loaded before the statement


def test_the_index_of_type_of_an_array_element_is_checked():
    """Warp computes the address of `x[i + 1]` in `type(x[i + 1])` (and checks its index
    in its debug build): its bounds are an obligation."""
    text = REFUSED.format(expr="type(x[i + 1])(2.5)").replace("    s = x[i]\n", "")
    (r,) = prove_source(text, "k.py", suggest=False)
    failed = [(o.kind.value, o.loc.line, o.loc.col) for o in r.obligations if o.status.value == "failed"]
    assert ("bounds", 7, 19) in failed, failed
    guarded = text.replace("    out[i] =", "    if i + 1 < x.shape[0] and i < out.shape[0]:\n        out[i] =")
    (r,) = prove_source(guarded, "k.py", suggest=False)
    assert r.status.value == "proved", [(o.kind.value, o.status.value) for o in r.obligations]


REFUSED = '''import warp as wp


@wp.kernel
def k(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    s = x[i]
    out[i] = {expr}
'''


def test_a_scalar_type_of_no_value_is_refused_by_both(warp_cpu, tmp_path):
    text = REFUSED.format(expr="type(s)()")
    module = warp_module_from_text(tmp_path, text, "verikern_type_of_refused")
    with pytest.raises(Exception, match="overload"):
        wp.launch(module.k, dim=1, device="cpu", inputs=[wp.zeros(1, dtype=wp.float64, device="cpu"),
                                                        wp.zeros(1, dtype=wp.float64, device="cpu")])
    err = compile_source(text, "k.py").kernels[0].error
    assert err is not None and err.rule == "arity" and "k.py:8:14" in err.render()


@pytest.mark.parametrize("expr, rule", [
    ("type(x)(0.0)", "type-constructor"),    # an array type is no value type
    ("type(s, s)(0.0)", "arity"),
])
def test_type_of_what_warp_cannot_call_is_a_located_error(expr, rule):
    err = compile_source(REFUSED.format(expr=expr), "k.py").kernels[0].error
    assert err is not None and err.rule == rule, err
    assert "k.py:8:" in err.render()


SHORT_CIRCUIT = '''import warp as wp


@wp.kernel
def restart(n_loop: wp.array(dtype=wp.int32), d0: wp.array(dtype=wp.float64),
            v: wp.array(dtype=wp.vec3d), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    d = d0[i]
    if n_loop[i] > 0 and d >= type(d0[i])(0.0):
        out[i] = d
    else:
        out[i] = type(d0[i])(-1.0) if n_loop[i] < 0 else d * type(v[i][1])(2.0)
    k = int(0)
    while k < n_loop[i] and type(v[i].z)(2.0) < type(d0[0])(3.0) + d:   # (Warp refuses `k += 1`
        out[i] = out[i] + type(d0[i])(0.5)                         # after a cast of k here)
        k += 1
'''


def test_type_of_behind_and_or_and_a_conditional_runs_as_warp_runs_it(warp_cpu, tmp_path):
    """nvalchemi's L-BFGS restart check writes `n_loop[i] > 0 and d0[i] >= type(d0[0])(0.0)`:
    Warp evaluates the operand of `type()` on the right of `and`, in a branch of a
    conditional expression and in a while test only when it gets there, and so does
    verikern (in place, not before the statement); the results are Warp's."""
    module = warp_module_from_text(tmp_path, SHORT_CIRCUIT, "verikern_type_of_short_circuit")
    ours = compile_source(SHORT_CIRCUIT, "short_circuit.py")
    assert not ours.all_errors, [e.render() for e in ours.all_errors]
    n_loop = np.array([0, 2, -1, 5, 1, 0, 3, -4], np.int32)
    d0 = np.array([1.5, -2.0, 0.25, 4.0, -0.5, -3.0, 0.0, 2.0])
    v = np.arange(24, dtype=np.float64).reshape(8, 3) / 4.0
    theirs = wp.zeros(8, dtype=wp.float64, device="cpu")
    wp.launch(module.restart, dim=8, device="cpu", inputs=[
        wp.array(n_loop, dtype=wp.int32, device="cpu"), wp.array(d0, dtype=wp.float64, device="cpu"),
        wp.array(v, dtype=wp.vec3d, device="cpu"), theirs])
    for dev in ("cpu", "cpu:native"):
        out = np.zeros(8)
        vk.launch(ours.kernel("restart").mir, 8, [n_loop, d0, v, out], device=dev)
        np.testing.assert_array_equal(out, theirs.numpy(), err_msg=dev)


def test_an_address_behind_a_short_circuit_is_checked_only_where_warp_computes_it():
    """The guard on the left of `or` keeps `type(x[i])`'s address in bounds: proved. Hoisted
    before the statement it would fail; off by one, the address one past the end fails."""
    text = REFUSED.format(expr="1.0 if i >= x.shape[0] or type(x[i])(2.0) > 1.0 else 0.0") \
        .replace("    s = x[i]\n", "").replace("    out[i] =", "    if i < out.shape[0]:\n        out[i] =")
    (r,) = prove_source(text, "k.py", suggest=False)
    assert r.status.value == "proved", [(o.kind.value, o.status.value) for o in r.obligations]
    (r,) = prove_source(text.replace("i >= x.shape[0]", "i > x.shape[0]"), "k.py", suggest=False)
    failed = [(o.kind.value, o.loc.line, o.loc.col) for o in r.obligations if o.status.value == "failed"]
    assert failed == [("bounds", 8, 48)], failed


def test_a_load_indexed_by_a_random_draw_is_evaluated_after_the_draw():
    text = ("import warp as wp\n\n\n@wp.kernel\ndef k(seed: int, x: wp.array(dtype=wp.float32), "
            "out: wp.array(dtype=wp.float32)):\n    i = wp.tid()\n    state = wp.rand_init(seed, i)\n"
            "    if i < out.shape[0]:\n        out[i] = type(x[wp.randi(state, 0, 4)])(1.0)\n")
    (r,) = prove_source(text, "k.py", suggest=False)
    failed = [(o.kind.value, o.loc.line, o.loc.col) for o in r.obligations if o.status.value == "failed"]
    assert failed == [("bounds", 9, 23)], failed          # x may hold fewer than 4 elements
    (r,) = prove_source(text.replace("if i < out.shape[0]:", "if i < out.shape[0] and x.shape[0] >= 4:"),
                        "k.py", suggest=False)
    assert r.status.value == "proved"


DTYPE_OF = '''import warp as wp

CHAIN = 4


@wp.kernel
def dtype_args(cells: wp.array(dtype=wp.mat33d), eta: wp.array(dtype=wp.float64),
               strains: wp.array(dtype=wp.mat33d), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    cell = cells[i]
    m = cell * cell
    m -= wp.identity(3, dtype=cell.dtype)        # a matrix's component type
    strains[i] = m
    local = wp.vector(dtype=eta.dtype, length=CHAIN)   # an array's element type, zeros
    for k in range(CHAIN):
        local[k] = eta[i] * eta.dtype(k + 1)
    out[i] = local[0] + local[3] + wp.float64(m[0, 1])
'''


def test_dtype_arguments_of_a_value_or_array_as_warp_reads_them(warp_cpu, tmp_path):
    module = warp_module_from_text(tmp_path, DTYPE_OF, "verikern_type_of_dtype_args")
    ours = compile_source(DTYPE_OF, "dtype_args.py")
    assert not ours.all_errors, [e.render() for e in ours.all_errors]
    rng = np.random.default_rng(8)
    cells, eta = rng.uniform(-2, 2, (12, 3, 3)), rng.uniform(-2, 2, 12)
    w_strains, w_out = wp.zeros(12, dtype=wp.mat33d, device="cpu"), wp.zeros(12, dtype=wp.float64,
                                                                             device="cpu")
    wp.launch(module.dtype_args, dim=12, device="cpu", inputs=[
        wp.array(cells, dtype=wp.mat33d, device="cpu"), wp.array(eta, dtype=wp.float64, device="cpu"),
        w_strains, w_out])
    for dev in ("cpu", "cpu:native"):
        strains, out = np.zeros((12, 3, 3)), np.zeros(12)
        vk.launch(ours.kernel("dtype_args").mir, 12, [cells, eta, strains, out], device=dev)
        # the matrix product's rounding may differ in the last bit (Warp's CPU build contracts to fma)
        np.testing.assert_allclose(strains, w_strains.numpy(), rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(out, w_out.numpy(), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(w_strains.numpy(), cells @ cells - np.eye(3), rtol=1e-12)


# ---------------------------------------------------- what Warp reads for type(...)
# nvalchemi's Nose-Hoover kinetic energy: every thread adds into ke2[0], converting to
# ke2's element type with `type(ke2[0])`. Warp computes the element's address there
# (`wp::address`, index-checked in its debug build) and reads nothing, so no read of
# ke2[0] races with the atomics: the kernel (the corpus's, in that shape) is proved, and its
# bounds stay obligations.
ACCUMULATE = (CORPUS / "ok_type_of_accumulator_atomic.py").read_text()


def _warp_forward(kernel) -> dict[int, list[str]]:
    """Warp's generated forward code of `kernel` (no compiler run), its lines by
    source line (Warp's `<L n>` comments)."""
    from warp._src.context import ModuleBuilder   # lazy: Warp's codegen, imported once Warp is initialised

    ModuleBuilder(kernel.module, kernel.module.options, target="cpu")
    out: dict[int, list[str]] = {}
    line = 0
    for text in kernel.adj.blocks[0].body_forward:
        if "<L " in text:
            line = int(text.rsplit("<L ", 1)[1].rstrip(">").strip())
        else:
            out.setdefault(line, []).append(text.strip())
    return out


def _loaded_addresses(lines: list[str]) -> tuple[int, int]:
    """(addresses computed, addresses loaded) among Warp's lines of one statement."""
    addresses = [t.split(" = ")[0] for t in lines if "wp::address(" in t]
    loaded = [a for a in addresses if any(f"wp::load({a})" in t for t in lines)]
    return len(addresses), len(loaded)


SHAPES = '''import warp as wp


@wp.kernel
def shapes(f: wp.array(dtype=wp.vec3), s: wp.array2d(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    a = type(f[i][0])(2.0)
    b = type(s[i, 1])(3.0)
    c = type(f[i + 1])(1.0, 2.0, 3.0)
    d = type(f[i].y)(4.0)
    out[i] = a + b + c[0] + d
'''


def test_type_of_an_element_computes_its_address_and_a_component_loads_it_in_warp_and_verikern(
        warp_cpu, tmp_path):
    """Real Warp's generated code is the reference: `type(a[i])` computes an address
    and loads nothing, `type(a[i][k])` and `type(a[i].y)` load the element. verikern's
    MIR has a `load.address` (a bounds check that reads nothing) for the first and a
    load for the others, and runs the kernel as Warp does."""
    module = warp_module_from_text(tmp_path, SHAPES, "verikern_type_of_shapes")
    theirs = _warp_forward(module.shapes)
    assert _loaded_addresses(theirs[7]) == (1, 1)      # type(f[i][0]): f[i] loaded
    assert _loaded_addresses(theirs[8]) == (1, 0)      # type(s[i, 1]): an address only
    assert _loaded_addresses(theirs[9]) == (1, 0)      # type(f[i + 1]): an address only
    assert _loaded_addresses(theirs[10]) == (1, 1)     # type(f[i].y): f[i] loaded
    mir = compile_source(SHAPES, "shapes.py").kernel("shapes").mir
    by_line: dict[int, list[tuple[str, bool]]] = {}
    for _, ins in mir.instructions():
        if type(ins).__name__ == "Load":
            by_line.setdefault(ins.loc.line, []).append((ins.array.name, ins.address_only))
    assert by_line[7] == [("f", False)] and by_line[10] == [("f", False)]     # the component read
    assert by_line[8] == [("s", True)] and by_line[9] == [("f", True)]
    f = np.arange(12, dtype=np.float32).reshape(4, 3)
    s = np.ones((3, 2), np.float32)
    w_out = wp.zeros(3, dtype=wp.float32, device="cpu")
    wp.launch(module.shapes, dim=3, device="cpu", inputs=[wp.array(f, dtype=wp.vec3, device="cpu"),
                                                         wp.array(s, dtype=wp.float32, device="cpu"), w_out])
    for dev in ("cpu", "cpu:native"):
        out = np.zeros(3, np.float32)
        vk.launch(mir, 3, [f, s, out], device=dev)
        np.testing.assert_array_equal(out, w_out.numpy())
    np.testing.assert_array_equal(w_out.numpy(), np.full(3, 10.0, np.float32))


def test_type_of_an_accumulator_element_does_not_race_with_its_atomics(warp_cpu, tmp_path):
    (r,) = prove_source(ACCUMULATE, "nh.py", suggest=False)
    assert r.status.value == "proved", [(o.kind.value, o.status.value, o.loc.line) for o in r.obligations]
    # ke2[0]'s index is still an obligation (Warp's debug build checks it), and nothing races on it
    kinds = sorted((o.kind.value, o.loc.line) for o in r.obligations)
    assert ("bounds", 11) in kinds and not any(k == "race" and line == 11 for k, line in kinds), kinds
    module = warp_module_from_text(tmp_path, ACCUMULATE, "verikern_type_of_accumulate")
    rng = np.random.default_rng(11)
    v, m = rng.uniform(-1, 1, (40, 3)).astype(np.float32), rng.uniform(0, 2, 40).astype(np.float32)
    theirs = wp.zeros(1, dtype=wp.float32, device="cpu")
    wp.launch(module.kinetic_energy_sum, dim=40, device="cpu", inputs=[wp.array(v, dtype=wp.vec3, device="cpu"),
                                                           wp.array(m, dtype=wp.float32, device="cpu"), theirs])
    mir = compile_source(ACCUMULATE, "nh.py").kernel("kinetic_energy_sum").mir
    for dev in ("cpu", "cpu:native"):
        ours = np.zeros(1, np.float32)
        vk.launch(mir, 40, [v, m, ours], device=dev)
        # float atomics add in thread order on both CPUs; the sum is the same to a few ulp
        np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-5)
    np.testing.assert_allclose(theirs.numpy()[0], np.sum(m * np.sum(v * v, axis=1)), rtol=1e-5)


def test_a_real_read_of_the_accumulator_still_races():
    text = ACCUMULATE.replace("    wp.atomic_add(ke2, 0, type(ke2[0])(",
                              "    old = ke2[0]\n        wp.atomic_add(ke2, 0, type(old)(")
    (r,) = prove_source(text, "nh.py", suggest=False)
    races = [(o.loc.line, o.other_loc.line if o.other_loc else None) for o in r.obligations
             if o.kind.value == "race" and o.status.value == "failed"]
    assert (11, 12) in races, [(o.kind.value, o.status.value, o.loc.line) for o in r.obligations]
    assert all(o.confirmed for o in r.obligations if o.status.value == "failed")


def test_type_of_a_vector_accumulators_component_is_a_read_that_races():
    """`type(acc[0][0])` loads acc[0] in Warp (the component is extracted from the
    loaded vector): a read that races with the atomic adds into acc[0]."""
    text = ACCUMULATE.replace("ke2: wp.array(dtype=wp.float32)", "ke2: wp.array(dtype=wp.vec3)").replace(
        "type(ke2[0])(m[i] * wp.dot(vv, vv))", "vv * type(ke2[0][0])(m[i])")
    (r,) = prove_source(text, "nh.py", suggest=False)
    failed = [(o.kind.value, o.loc.line) for o in r.obligations if o.status.value == "failed"]
    assert ("race", 11) in failed, failed


def test_type_of_a_shared_element_before_any_write_reads_nothing_uninitialised(tmp_path):
    """No `uninit` obligation and no trace event for `type(sh[t])`: nothing is read."""
    text = '''import verikern as vk


@vk.kernel(block_dim=32)
def stage(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(x.shape[0] == vk.launch_dim() and out.shape[0] == vk.launch_dim())
    sh = vk.shared.array(shape=(32,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    sh[t] = type(sh[t])(2.0) * x[i]
    vk.sync_threads()
    out[i] = sh[31 - t]
'''
    (r,) = prove_source(text, "stage.py", suggest=False)
    assert r.status.value == "proved", [(o.kind.value, o.status.value, o.loc.line) for o in r.obligations]
    assert [o.kind.value for o in r.obligations if o.loc.line == 10].count("bounds") == 3   # sh[t] twice, x[i]
    assert not [o for o in r.obligations if o.kind.value == "uninit" and o.loc.line == 10]
    mir = compile_source(text, "stage.py").kernel("stage").mir
    x, out = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    trace = tmp_path / "t.json"
    vk.launch(mir, 64, [x, out], device="cpu:trace", trace_path=str(trace))
    np.testing.assert_array_equal(out, 2 * (x.reshape(2, 32)[:, ::-1]).ravel())
    doc = json.loads(trace.read_text())
    sh_events = [e for e in doc["events"] if e.get("array") == "sh"]
    assert {(e["op"], e["line"]) for e in sh_events} == {("write", 10), ("read", 12)}
