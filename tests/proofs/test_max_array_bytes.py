"""`--max-array-bytes`: the prover assumes every array holds at most that
many bytes (docs/LANGUAGE.md section 5), counting vector components, and every
report states the value used. Boundaries are hand-computed: a vec3 of
float32 is 12 bytes, so 1200 bytes admit exactly 100 elements."""
from __future__ import annotations

import json
import os
import sys

import pytest
from click.testing import CliRunner

from verikern.encoders.smt.launch import (
    DEFAULT_MAX_ARRAY_BYTES, LaunchModel, array_size_bound, element_bytes,
)

sys.path.insert(0, os.path.dirname(__file__))

from prover_helpers import compile_kernel, prove_src  # noqa: E402

VEC3_LEN = """
@vk.kernel
def vec_len(v: vk.array(dtype=vk.vec3)):
    i = vk.tid()
    assert v.shape[0] < 100
"""

# The int32 product of the two dims wraps to a negative number only when
# the array has at least 2**31 elements (8 GiB of float32).
PRODUCT_2D = """
@vk.kernel
def product(a: vk.array(dtype=vk.float32, ndim=2)):
    i = vk.tid()
    n = a.shape[0] * a.shape[1]
    assert n >= 0
"""


def _assert_status(obligations, status: str):
    (ob,) = [o for o in obligations if o.kind.value == "assert"]
    assert ob.status.value == status, ob.message
    return ob


def test_vector_components_count_in_the_element_size():
    k = compile_kernel(VEC3_LEN)
    (arr,) = [p for p in k.params if getattr(p, "inner", None)]
    assert element_bytes(arr) == 12
    # 1200 bytes: 100 vec3 elements fit, so shape 100 breaks the assert
    ob = _assert_status(prove_src(VEC3_LEN, 10, max_array_bytes=1200), "failed")
    assert ob.counterexample.shapes["v"] == (100,)
    # 1199 bytes: at most 99 elements, the assert holds
    _assert_status(prove_src(VEC3_LEN, 10, max_array_bytes=1199), "proved")


def test_a_two_dimensional_product_is_bounded_without_wrap():
    # 2**33 bytes = 2**31 float32 elements: a product of exactly 2**31 wraps
    ob = _assert_status(prove_src(PRODUCT_2D, 10, max_array_bytes=1 << 33), "failed")
    n, m = ob.counterexample.shapes["a"]
    assert n * m * 4 <= 1 << 33 and n * m >= 1 << 31
    # 2**32 bytes: at most 2**30 elements, the product never wraps
    _assert_status(prove_src(PRODUCT_2D, 10, max_array_bytes=1 << 32), "proved")


def test_the_default_bound_excludes_arrays_larger_than_a_device():
    ob = _assert_status(prove_src(PRODUCT_2D, 10), "failed")
    n, m = ob.counterexample.shapes["a"]
    assert n * m * 4 <= DEFAULT_MAX_ARRAY_BYTES


def test_an_empty_dimension_is_an_empty_array_whatever_the_others():
    import z3

    k = compile_kernel(PRODUCT_2D)
    (arr,) = [p for p in k.params if getattr(p, "ndim", 0) == 2]
    big = z3.BitVecVal(2 ** 31 - 1, 32)
    bound = array_size_bound(arr, [big, z3.BitVecVal(0, 32)], 4)
    assert z3.is_true(z3.simplify(bound))
    over = array_size_bound(arr, [big, z3.BitVecVal(2, 32)], 1 << 33)
    assert z3.is_false(z3.simplify(over))          # 2 * (2**31 - 1) * 4 > 2**33
    # a bound no int32 shape can break adds nothing
    assert array_size_bound(arr, [big, big], 1 << 64) is None


def test_bad_bounds_are_refused():
    k = compile_kernel(VEC3_LEN)
    for bad in (0, -1, 2 ** 64 + 1, True):
        with pytest.raises(ValueError):
            LaunchModel(k, None, None, bad)


def test_the_report_and_cache_key_carry_the_value(tmp_path):
    from verikern.app.cache import ProofCache
    from verikern.cli import main

    src = tmp_path / "k.py"
    src.write_text("import verikern as vk\n" + VEC3_LEN)
    runner = CliRunner()
    out = runner.invoke(main, ["prove", str(src), "--no-cache", "--format", "json",
                               "--max-array-bytes", "1199"])
    assert out.exit_code == 0, out.stdout
    data = json.loads(out.stdout)
    assert data["options"]["max_array_bytes"] == 1199
    assert "1199 bytes" in data["assumptions"]["array_bound"]
    (kernel,) = data["kernels"]
    assert kernel["scope"]["max_array_bytes"] == 1199
    assert "1199 bytes" in kernel["scope"]["array_bound"]
    out = runner.invoke(main, ["prove", str(src), "--no-cache", "--format", "json",
                               "--max-array-bytes", "2**40"])
    assert out.exit_code == 1, out.stdout
    assert json.loads(out.stdout)["kernels"][0]["scope"]["max_array_bytes"] == 1 << 40
    bad = runner.invoke(main, ["prove", str(src), "--no-cache", "--max-array-bytes", "0"])
    assert bad.exit_code == 3
    keys = {ProofCache.key(file="k.py", kernel="k", mir_sha256="0" * 64, dims=None, block_dim=None,
                           budget=None, replay=True, max_array_bytes=v) for v in (None, 1199, 1 << 40)}
    assert len(keys) == 2          # None is the default, 2**40
