"""benchmarks/generic_refusals.py on kernels written here (never a download):
generic kernels found by their `Any` annotations, each one's state from its
file compiled (refused with the reason, opaque, enumerated, error, or proved
by the type-oblivious proof), refusals grouped by cause (a carrier not found
by the furthest typing's error), and the report's counts."""
from __future__ import annotations

import ast
import sys

import pytest

from shared_helpers import BENCHMARKS, import_file

GENERIC = '''from typing import Any

import warp as wp


@wp.kernel
def divides(values: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < values.shape[0] and i < out.shape[0]:
        v = values[i]
        out[i] = out[i] * (type(v)(1.0) / v)


@wp.kernel
def scaled(values: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < values.shape[0] and i < out.shape[0]:
        out[i] = values[i] + values[i]


@wp.kernel
def plain(a: wp.array(dtype=float)):
    a[0] = 1.0


@wp.kernel
def scalar_only(values: wp.array(dtype=Any), out: wp.array(dtype=float)):
    i = wp.tid()
    if i < values.shape[0] and i < out.shape[0]:
        out[i] = float(values[i])
'''


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(BENCHMARKS))     # it imports warp_projects as its script folder's module
    try:
        yield import_file(BENCHMARKS / "generic_refusals.py", "generic_refusals", keep=False)
    finally:
        sys.path.remove(str(BENCHMARKS))


def test_a_kernel_is_generic_when_an_annotation_names_any(bench):
    tree = ast.parse(GENERIC)
    generic = {n.name: bench.is_generic(n) for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert generic == {"divides": True, "scaled": True, "plain": False, "scalar_only": True}


def test_each_generic_kernel_gets_its_state_and_the_opaque_one_is_proved(bench, tmp_path):
    path = tmp_path / "kernels.py"
    path.write_text(GENERIC, encoding="utf-8")
    states = bench.file_states(str(path), ["divides", "scaled", "scalar_only"], {"scaled"}, None)
    assert states["divides"]["state"] == "refused" and "division" in states["divides"]["why"]
    assert states["scaled"]["state"] == "proved", states["scaled"]
    assert states["scalar_only"]["state"] == "enumerated"
    assert bench.file_states(str(path), ["scaled"], set(), None)["scaled"]["state"] == "opaque"
    broken = tmp_path / "broken.py"
    broken.write_text(GENERIC.replace("out[i] = values[i] + values[i]", "out[i] = values[i] +"), encoding="utf-8")
    assert bench.file_states(str(broken), ["scaled"], set(), None)["scaled"]["state"] == "error"


def test_refusals_group_by_cause_and_a_missing_carrier_by_the_furthest_error(bench):
    rows = [{"project": "p", "file": "f.py", "line": n, "kernel": f"k{n}", "state": "refused",
             "file_cpu_s": 1.0, "file_wall_s": 1.0, "why": why} for n, why in enumerate([
                 "a division at line 12 by a value of a generic type: ...",
                 "a division at line 40 by a value of a generic type: ...",
                 "no float32-based typing of its generic parameters type-checks (...); "
                 f"{bench.FURTHEST} a vector component 8 is out of range 0..6"])]
    rows.append({**rows[0], "kernel": "done", "state": "proved", "why": ""})
    assert bench.category(rows[0]) == bench.category(rows[1])
    assert bench.category(rows[2]) == "no float32-based typing; furthest: a vector component N is out of range N..6"
    text = bench.render(rows)
    assert "p: 4 generic kernels; refused 3, proved 1" in text
    assert "     2  a division at line N by a value of a generic type: ..." in text
    assert "  proved    p:f.py:0 done" in text
