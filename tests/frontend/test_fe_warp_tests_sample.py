"""benchmarks/warp_tests_sample.py on a synthetic `warp/tests` folder written
here (never Warp's own files): which kernels the syntactic filter keeps, the
reason of each exclusion, kernels Warp expects to fail kept out of the rate,
and the compile rate computed from the frontend's results."""
from __future__ import annotations

import importlib.util
import io
import sys

import pytest

from shared_helpers import BENCHMARKS

HEAD = "import unittest\nimport warp as wp\n\n"

FILE = HEAD + '''
@wp.struct
class S:
    x: float


@wp.kernel
def plain(a: wp.array[float]):
    a[wp.tid()] = 1.0


@wp.kernel
def type_change(a: wp.array[float]):
    x = 1.0
    x = 2
    a[0] = x


@wp.kernel
def uses_mesh(m: wp.uint64, a: wp.array[float]):
    a[0] = wp.mesh_query_point(m, wp.vec3(), 1.0).u


@wp.kernel
def uses_struct(s: S, a: wp.array[float]):
    a[0] = s.x


@wp.kernel
def view(a: wp.array2d[float], b: wp.array[float]):
    row = a[0]
    b[0] = row[0]


def helper():
    return 3


@wp.kernel
def runtime_name(a: wp.array[float]):
    a[0] = float(helper())


class T(unittest.TestCase):
    def test_bad(self):
        with self.assertRaises(Exception):
            @wp.kernel
            def rejected(a: wp.array[float]):
                v = 1.0
                v = 2
                a[0] = v
'''

STAR = "from warp.tests.unittest_utils import *\n\n@wp.kernel\ndef k(a: wp.array[float]):\n    a[0] = 1.0\n"


@pytest.fixture(scope="module")
def sample():
    spec = importlib.util.spec_from_file_location("warp_tests_sample",
                                                  BENCHMARKS / "warp_tests_sample.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module          # its dataclasses resolve their module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def test_filter_rows_and_rate(sample, tmp_path):
    tests = tmp_path / "warp" / "tests"
    (tests / "matrix").mkdir(parents=True)
    (tests / "test_synthetic.py").write_text(FILE, encoding="utf-8")
    (tests / "matrix" / "test_star.py").write_text(STAR, encoding="utf-8")
    (tests / "helper_not_a_test.py").write_text(FILE, encoding="utf-8")   # not test_*.py
    result = sample.run(tmp_path, quiet=True)
    rows = {r["kernel"].rsplit(":", 1)[1]: r for r in result["rows"]}
    assert set(rows) == {"plain", "type_change"}
    assert rows["plain"]["compiled"] and rows["plain"]["error"] is None
    assert not rows["type_change"]["compiled"]
    assert rows["type_change"]["error"].startswith("type-change:")
    why = {e["kernel"].rsplit(":", 1)[1]: e["reason"] for e in result["excluded"]}
    assert why["uses_mesh"].startswith("mesh/volume/bvh/hash-grid geometry (wp.mesh_query_point")
    assert why["uses_struct"].startswith("structs (S,")
    assert why["view"].startswith("array views (partial indexing of a")
    assert why["runtime_name"].startswith("unresolvable names (helper: a plain Python function")
    assert why["k"].startswith("unresolvable names (wp: the file never imports warp")
    assert [r["kernel"].rsplit(":", 1)[1] for r in result["expects_error"]] == ["rejected"]
    out = io.StringIO()
    totals = sample.summary(result, out=out)
    assert (totals["kernels"], totals["compiled"], totals["rate"]) == (2, 1, 0.5)
    assert totals["failures_by_rule"] == {"type-change": 1}
    text = out.getvalue()
    assert "compiled 1/2 = 50.0%" in text
    assert "Warp expects an error (1 kernels, kept out of the rate): verikern rejects 1" in text
