"""`@wp.func` overloads are chosen by Warp's rules (frontend/check/overloads.py): a
bare literal has its default type whatever the parameter, non-generic
overloads before generic ones; a call verikern cannot resolve as Warp would
is a located error. Real Warp on the CPU is the reference."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import verikern as vk
from frontend.fe_util import compile_ok, compile_text, first_error, marker_loc

SRC = '''\
from typing import Any

import warp as wp


@wp.func
def pick(x: float) -> int:
    return 1


@wp.func
def pick(x: int) -> int:
    return 2


@wp.func
def pick(x: wp.int8) -> int:
    return 3


@wp.func
def gen(x: Any) -> int:
    return 10


@wp.func
def gen(x: int) -> int:
    return 20


@wp.func
def scaled(x: int, s: float = 2.0) -> int:
    return 4


@wp.func
def scaled(x: int, s: wp.float64) -> int:
    return 5


@wp.kernel
def k(out: wp.array[int], f: float, i8: wp.int8):
    out[0] = pick(1)
    out[1] = pick(1.0)
    out[2] = pick(i8)
    out[3] = gen(1)
    out[4] = gen(1.0)
    out[5] = pick(-7)
    out[6] = scaled(1)
    out[7] = pick(f)
'''
WANT = [2, 1, 3, 20, 10, 2, 4, 1]
REDEFINED = SRC.replace("@wp.func\ndef gen(x: Any)", "@wp.func\ndef pick(x: wp.float32) -> int:\n"
                        "    return 7\n\n\n@wp.func\ndef gen(x: Any)")
WANT_REDEFINED = [2, 7, 3, 20, 10, 2, 4, 7]


def test_verikern_picks_the_overloads_warp_picks():
    out = np.zeros(8, np.int32)
    vk.launch(compile_ok(SRC), 1, [out, 1.0, 1])
    assert out.tolist() == WANT


@pytest.mark.parametrize("src, want", [(SRC, WANT), (REDEFINED, WANT_REDEFINED)],
                         ids=["overloads", "redefined"])
def test_real_warp_picks_the_same(src, want, tmp_path):
    wp = pytest.importorskip("warp", reason="warp-lang is not installed")
    path = tmp_path / f"overload_probe_{len(src)}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    wp.config.quiet = True
    wp.init()
    out = wp.zeros(8, dtype=int, device="cpu")
    wp.launch(module.k, dim=1, inputs=[out, 1.0, wp.int8(1)], device="cpu")
    assert out.numpy().tolist() == want


def test_no_overload_takes_the_exact_types():
    src = SRC.replace("    out[7] = pick(f)\n", "    out[7] = pick(wp.float64(1.0))\n")
    e = first_error(src)
    assert e.rule == "no-overload" and "float64" in e.message and "1 is int32" in e.message
    assert (e.loc.line, e.loc.col) == marker_loc(src, "pick(wp.float64")


def test_a_default_verikern_cannot_read_is_an_error_not_a_guess():
    src = SRC.replace("import warp as wp\n", "import warp as wp\nS = float(input())\n") \
        .replace("s: float = 2.0)", "s: float = S)")
    e = compile_text(src).kernels[0].error
    assert e.rule == "overload-ambiguous" and "pass every argument" in e.hint
    assert (e.loc.line, e.loc.col) == marker_loc(src, "scaled(1)")


def test_a_redefinition_with_the_same_types_replaces_the_overload_in_its_place():
    """`float` and `wp.float32` are one signature: Warp keeps the later body."""
    out = np.zeros(8, np.int32)
    vk.launch(compile_ok(REDEFINED), 1, [out, 1.0, 1])
    assert out.tolist() == WANT_REDEFINED
