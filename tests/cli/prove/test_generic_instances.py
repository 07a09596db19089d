"""A generic kernel is proved for every instantiation Warp can build
(frontend/check/generic_kernels.py), with a verdict per instance in every report
format: a kernel whose one declared `wp.overload` (int32) is correct but
whose int8 instance wraps `k + k` fails; real Warp on the CPU builds that
int8 instance at launch and wraps the same way."""
from __future__ import annotations

import importlib.util
import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import z3
from click.testing import CliRunner

import run_shared
import verikern as vk
from verikern.app.cache import ProofCache, code_hash
from verikern.app.prove import prove_file, prove_source
from verikern.cli import main
from verikern.errors import KernelError, OutOfBoundsError
from verikern.frontend import compile_source
from verikern.frontend.check import generic_kernels
from verikern.frontend.check.generic_opaque import OpaquePlan
from verikern.mir.nodes import SourceLoc
from verikern.proofs.obligations import Status

BUGGY = '''\
from typing import Any

import warp as wp


@wp.kernel
def gather_doubled(keys: wp.array(dtype=Any), table: wp.array(dtype=float),
                   out: wp.array(dtype=float)):
    i = wp.tid()
    if i < keys.shape[0] and i < out.shape[0]:
        k = keys[i]
        if int(k) >= 0 and int(k) < table.shape[0] // 2:
            out[i] = table[int(k + k)]


wp.overload(gather_doubled, [wp.array(dtype=wp.int32), wp.array(dtype=float),
                             wp.array(dtype=float)])
'''
CORRECT = BUGGY.replace('''        if int(k) >= 0 and int(k) < table.shape[0] // 2:
            out[i] = table[int(k + k)]''', '''        j = int(k + k)
        if j >= 0 and j < table.shape[0]:
            out[i] = table[j]''')
NUMERIC = ["int32", "int8", "int16", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64"]    # the declared overload first; bool does not add


def _verdicts(src):
    return {r.kernel: r for r in _reports(src)}


def _reports(src) -> tuple:
    """`src` proved without suggestions, once per test run (tests/run_shared.py; frozen
    dataclasses, each test gets a dict of its own)."""
    key = (code_hash(), z3.get_version_string(), src)
    return run_shared.shared("generic-instances-verdicts", key,
                             lambda: tuple(prove_source(src, "g.py", suggest=False)))


@pytest.fixture(scope="module")
def buggy_with_its_cache(tmp_path_factory):
    """BUGGY in one file, proved once for the module (without suggestions, with `verikern
    prove`'s default budget) into a proof cache beside it: (the file, the cache, its
    reports). The verdict tests read the reports; the formats' cases run the
    CLI with the same options through that cache, so each renders this proof instead of
    proving the eleven instances again (the reports are frozen dataclasses; each test gets
    a dict of its own)."""
    folder = tmp_path_factory.mktemp("generic_formats")
    path = folder / "g.py"
    path.write_text(BUGGY)
    cache = folder / "cache"
    reports = tuple(prove_file(str(path), kernel="gather_doubled", suggest=False, budget=10.0,
                               cache=ProofCache(str(cache))))
    return path, cache, reports


def test_the_declared_overload_is_proved_but_the_int8_instance_fails(buggy_with_its_cache):
    reports = {r.kernel: r for r in buggy_with_its_cache[2]}
    assert list(reports) == [f"gather_doubled[{t}]" for t in NUMERIC]
    assert reports["gather_doubled[int32]"].status.value == "proved"
    for t in ("int8", "int16"):   # k + k wraps in the key's own type
        r = reports[f"gather_doubled[{t}]"]
        assert r.status.value == "failed"
        (ob,) = [ob for ob in r.obligations if ob.status is Status.FAILED]
        assert ob.kind.value == "bounds" and "wraps to" in ob.message and f"in {t}" in ob.message
        assert (ob.loc.line, ob.loc.col) == (13, 22)
        # int8's launch is small enough to replay; int16's needs a table of 2**15 elements and more
        assert ob.confirmed or t == "int16"


def test_the_guarded_kernel_is_proved_for_every_instance():
    reports = _verdicts(CORRECT)
    assert list(reports) == [f"gather_doubled[{t}]" for t in NUMERIC]
    assert all(r.status.value == "proved" for r in reports.values()), \
        {k: r.status.value for k, r in reports.items()}


def test_the_simulator_shows_the_int8_instance_out_of_bounds():
    k = compile_source(BUGGY, "g.py").kernel("gather_doubled[int8]").mir
    with pytest.raises(OutOfBoundsError):
        vk.launch(k, 1, [np.array([100], np.int8), np.zeros(256, np.float32),
                         np.zeros(1, np.float32)], block_dim=1)


@pytest.mark.parametrize("fmt", ["text", "short", "json", "sarif", "junit"])
def test_every_format_gives_a_verdict_per_instance(fmt, buggy_with_its_cache):
    path, cache, _ = buggy_with_its_cache
    result = CliRunner().invoke(main, ["prove", str(path), "--format", fmt, "--cache-dir", str(cache),
                                       "--no-suggest", "--kernel", "gather_doubled"])
    assert result.exit_code == 1, result.output
    out = result.stdout          # the per-kernel progress lines go to stderr
    if fmt == "text":
        assert "PROVED  gather_doubled[int32]" in out and "FAILED  gather_doubled[int8]" in out
    elif fmt == "short":
        assert "(in gather_doubled[int8])" in out and "(in gather_doubled[int16])" in out
        assert "gather_doubled[int32]" not in out          # proved: nothing to say
    elif fmt == "json":
        kernels = json.loads(out)["kernels"]
        assert {k["kernel"]: k["status"] for k in kernels}["gather_doubled[int8]"] == "failed"
        assert {k["kernel"]: k["status"] for k in kernels}["gather_doubled[int32]"] == "proved"
    elif fmt == "sarif":
        texts = [r["message"]["text"] for r in json.loads(out)["runs"][0]["results"]]
        assert any(t.startswith("gather_doubled[int8]: ") for t in texts)
    else:
        cases = {c.get("name"): c for c in ET.fromstring(out).iter("testcase")}
        assert cases["gather_doubled[int8]"].find("failure") is not None
        assert cases["gather_doubled[int32]"].find("failure") is None


PROBE = '''\
from typing import Any

import warp as wp


@wp.kernel
def doubled(keys: wp.array(dtype=Any), out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = int(keys[i] + keys[i])


wp.overload(doubled, [wp.array(dtype=wp.int32), wp.array(dtype=int)])
'''


def test_real_warp_instantiates_int8_at_launch_and_wraps(tmp_path):
    wp = pytest.importorskip("warp", reason="warp-lang is not installed")
    path = tmp_path / "generic_probe.py"
    path.write_text(PROBE)
    spec = importlib.util.spec_from_file_location("generic_probe", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    wp.config.quiet = True
    wp.init()
    keys = np.array([100, 27, -100], np.int8)
    out = wp.zeros(3, dtype=int, device="cpu")
    wp.launch(module.doubled, dim=3, inputs=[wp.array(keys, dtype=wp.int8, device="cpu"), out],
              device="cpu")
    assert out.numpy().tolist() == [-56, 54, 56]       # int8 arithmetic, not the int32 overload
    ours = np.zeros(3, np.int32)
    vk.launch(compile_source(PROBE, "p.py").kernel("doubled[int8]").mir, 3, [keys, ours])
    assert ours.tolist() == [-56, 54, 56]


COPY = '''\
from typing import Any

import warp as wp


@wp.kernel
def copy_keys(keys: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = keys[i]
'''


def test_one_instance_is_selected_by_its_name_and_its_suggestion_is_proved_pasted():
    (r,) = prove_source(COPY, "c.py", kernel="copy_keys[int8, int8]", suggest=True)
    assert r.kernel == "copy_keys[int8, int8]" and r.status.value == "failed"
    assert r.suggested_decorators and r.proved_under_suggestion is True
    names = compile_source(COPY, "c.py").kernel_names
    assert names[:2] == ["copy_keys[bool, bool]", "copy_keys[int8, int8]"] and len(names) == 13
    assert names[-1] == "copy_keys[...]"     # it also copies vec3 arrays: not enumerated


def test_a_float_instance_is_confirmed_by_a_negative_fraction_and_says_what_ran(buggy_with_its_cache):
    """int(k) truncates toward zero: a float key of -0.75 passes `int(k) >= 0`
    while int(k + k) is -1. The prover's float values are abstract; replay
    confirms on a fill of -0.75, and the message quotes that run (table[-1]),
    not the abstract model's index."""
    (r,) = [r for r in buggy_with_its_cache[2] if r.kernel == "gather_doubled[float32]"]
    (ob,) = [ob for ob in r.obligations if ob.status is Status.FAILED]
    assert ob.confirmed and (ob.loc.line, ob.loc.col) == (13, 22)
    assert "on the simulator, out-of-bounds access to global array table[-1]" in ob.message, ob.message
    assert ob.counterexample.facts == {"fill": {"keys": -0.75, "table": -0.75, "out": -0.75}}


def _prove_guarded_copy(folder, fmt: str, kernels: str, cache: bool = False):
    """`verikern prove` of COPY with its access guarded (written to `folder`), in format
    `fmt`; with `cache`, through the proof cache beside it, else with none."""
    path = folder / "c.py"
    path.write_text(COPY.replace("    out[i] = keys[i]", "    if i < keys.shape[0] and i < out.shape[0]:\n"
                                                       "        out[i] = keys[i]"))
    caching = ["--cache-dir", str(folder / "cache")] if cache else ["--no-cache"]
    return CliRunner().invoke(main, ["prove", str(path), "--format", fmt, *caching,
                                     "--no-suggest", "--kernel", kernels])


@pytest.fixture(scope="module")
def refused_copy_folder(tmp_path_factory):
    """A folder for the test below: its five formats' cases render one proof of the int32
    instance (the first case of a worker proves it, the others read it from the cache
    there); its own, as the refusal that test patches in is not part of the cache's key."""
    return tmp_path_factory.mktemp("refused_copy")


@pytest.mark.parametrize("fmt", ["text", "short", "json", "sarif", "junit"])
def test_the_instantiations_not_enumerated_are_unknown_with_the_reason_in_every_format(
        fmt, refused_copy_folder, monkeypatch):
    # without the type-oblivious proof (refused here; test_type_oblivious.py has the real refusals)
    monkeypatch.setattr(generic_kernels._Enumerator, "opaque",
                        lambda self: OpaquePlan(refusal="refused by this test"))
    result = _prove_guarded_copy(refused_copy_folder, fmt, "copy_keys[int32, int32],copy_keys[...]", cache=True)
    out = result.stdout
    assert result.exit_code == 2, result.output      # unknown: no failure, not proved
    why = "may also be instantiated as copy_keys[vec3, vec3]"
    if fmt == "text":
        assert "UNKNOWN copy_keys[...]" in out and "c.py:7:1: warning: unknown: the generic kernel" in out
        assert why in out and "PROVED  copy_keys[int32, int32]" in out
        assert "no type-oblivious proof: refused by this test" in out
        assert "1 proved, 0 failed, 1 unknown, 0 error" in out
    elif fmt == "short":
        assert out.count("\n") == 1 and "c.py:7:1: warning: unknown: " in out and why in out
    elif fmt == "json":
        kernels = {k["kernel"]: k for k in json.loads(out)["kernels"]}
        assert kernels["copy_keys[...]"]["status"] == "unknown" and why in kernels["copy_keys[...]"]["error"]
        assert kernels["copy_keys[...]"]["obligations"] == []
    elif fmt == "sarif":
        (result,) = json.loads(out)["runs"][0]["results"]
        assert result["ruleId"] == "generic-instances" and result["level"] == "warning"
        assert why in result["message"]["text"]
    else:
        assert '<error type="unknown" message="' in out and why in out


@pytest.mark.parametrize("fmt", ["text", "short", "json", "sarif", "junit"])
def test_a_type_oblivious_proof_proves_every_instantiation_in_every_format(fmt, tmp_path):
    """The same kernel, its `copy_keys[...]` proved by the type-oblivious proof
    (frontend/check/generic_opaque.py), which covers the scalar instances too."""
    result = _prove_guarded_copy(tmp_path, fmt, "copy_keys")
    out = result.stdout
    assert result.exit_code == 0, result.output
    scalars = [f"copy_keys[{t}, {t}]" for t in ["bool"] + NUMERIC[1:4] + ["int32"] + NUMERIC[4:]]
    if fmt == "text":
        assert "PROVED  copy_keys[...] (3 obligations" in out
        assert "proved for every instantiation by a type-oblivious proof" in out
        assert "copy_keys[int8, int8], copy_keys[int16, int16]" in out
        assert "PROVED  copy_keys[int8, int8] (0 obligations" in out
        assert "proved by the type-oblivious proof of copy_keys[...], not on its own" in out
        assert "13 kernels: 13 proved, 0 failed, 0 unknown, 0 error" in out
    elif fmt == "short":
        assert out == ""
    elif fmt == "json":
        kernels = {k["kernel"]: k for k in json.loads(out)["kernels"]}
        assert kernels["copy_keys[...]"]["status"] == "proved"
        assert set(kernels["copy_keys[...]"]["type_oblivious"]["covers"]) == set(scalars)
        assert kernels["copy_keys[int8, int8]"]["type_oblivious"] == {"covered_by": "copy_keys[...]"}
        assert kernels["copy_keys[int8, int8]"]["obligations"] == []
    elif fmt == "sarif":
        run = json.loads(out)["runs"][0]
        assert run["results"] == []
        kernels = {k["kernel"]: k for k in run["properties"]["kernels"]}
        assert "covers" in kernels["copy_keys[...]"]["type_oblivious"]
    else:
        assert "<failure" not in out and "<error" not in out and 'name="copy_keys[...]"' in out


SAME_ERROR = '''\
from typing import Any

import warp as wp


@wp.kernel
def staged(x: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    shape = (4,)
    out[i] = x[i]


@wp.kernel
def plain(x: wp.array(dtype=float)):
    shape = (4,)
'''


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_an_error_every_typing_shares_is_reported_once_with_the_count(fmt, tmp_path):
    """A generic kernel refused for the same reason in each of its typings is one
    error naming how many typings it stands for, not one per typing (warp-nn's
    nested tile kernels printed 144 identical errors per kernel)."""
    path = tmp_path / "s.py"
    path.write_text(SAME_ERROR)
    result = CliRunner().invoke(main, ["prove", str(path), "--format", fmt, "--no-cache", "--no-suggest"])
    assert result.exit_code == 3, result.output
    where = f"{path}:9:13: error: tuples are allowed only to unpack vk.tid()"
    if fmt == "text":
        errors = [line for line in result.stdout.splitlines() if line.startswith("ERROR")]
        assert [e.split(" (")[0] for e in errors] == ["ERROR   staged[144 typings]", "ERROR   plain"], errors
        assert result.stdout.count(where) == 1
        assert "(the same error in each of its 144 typings: staged[bool, bool], staged[bool, int8], ..., " \
               "staged[float64, float64])" in result.stdout
    else:
        kernels = {k["kernel"]: k for k in json.loads(result.stdout)["kernels"]}
        assert [k for k in kernels if k.startswith("staged[") and "typings" in k] == ["staged[144 typings]"]
        assert kernels["staged[144 typings]"]["status"] == "error"
        assert where in kernels["staged[144 typings]"]["error"]
        assert not any(k.startswith("staged[bool") for k in kernels)     # no instance repeats it


def test_only_the_same_error_at_the_same_place_is_merged():
    """Typings refused with different messages or places stay apart; an unknown
    `kernel[...]` and the compiled instances are kept as they are."""
    from types import SimpleNamespace   # lazy: a stand-in definition only this test builds

    d = SimpleNamespace(node=SimpleNamespace(name="k"))
    at = SourceLoc("k.py", 9, 5)

    def inst(name, message=None, where=at, unknown=False):
        err = KernelError(message, where, "tuple") if message else None
        return generic_kernels.Instance(d, name, name.replace("[", "__").strip("]"), {}, err,
                                        unknown=unknown)

    mine = [inst("k[int8]", "no tuples"), inst("k[int16]"), inst("k[int32]", "no tuples"),
            inst("k[uint8]", "no tuples", SourceLoc("k.py", 10, 5)), inst("k[uint16]", "no lists"),
            inst("k[int64]", "no tuples"), inst("k[...]", "no tuples", unknown=True),
            inst("k[bool]", "no lists")]
    out = generic_kernels._merge_same_errors(mine)
    assert [i.name for i in out] == ["k[3 typings]", "k[int16]", "k[uint8]", "k[2 typings]", "k[...]"]
    assert out[0].error.message == "no tuples (the same error in each of its 3 typings: k[int8], k[int32], k[int64])"
    assert out[0].error.loc == at and out[0].error.rule == "tuple" and out[0].mir_name == "k__3_typings"
    assert out[3].error.message == "no lists (the same error in each of its 2 typings: k[uint16], k[bool])"
    assert out[1:3] == [mine[1], mine[3]] and out[4] is mine[6]
