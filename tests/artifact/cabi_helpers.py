"""Calling a library written by `verikern build --target cpu` from a test
(ctypes; the C host example itself has no Python at run time)."""
from __future__ import annotations

import ctypes
import shutil
from pathlib import Path

import numpy as np
import pytest

import verikern as vk
from verikern.app.build import BuildOptions, build
from verikern.frontend import compile_file

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "verikern" / "selftest_corpus"
C_HOST = REPO / "examples" / "c_host"

needs_cc = pytest.mark.skipif(shutil.which("cc") is None or shutil.which("gcc") is None,
                              reason="no C compiler (cc/gcc) on this machine")


class Status(ctypes.Structure):
    """vk_status of the generated header."""

    _fields_ = [("code", ctypes.c_int32), ("line", ctypes.c_int32), ("col", ctypes.c_int32),
                ("thread", ctypes.c_int64), ("block", ctypes.c_int64),
                ("message", ctypes.c_char * 512)]


def built(src, out: Path, **options):
    """(BuildResult, ctypes library) of `src` built into `out`."""
    result = build(src, out, BuildOptions(**options))
    lib = ctypes.CDLL(str(out / f"lib{result.manifest['library']}.so"))
    return result, lib


def ptr(a: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(a.ctypes.data)


def call(lib, name: str, *args) -> Status:
    """Call entry `vk_<name>` with `args` (ctypes values) and a status."""
    st = Status()
    fn = getattr(lib, f"vk_{name}")
    fn.restype = ctypes.c_int32
    rc = fn(*args, ctypes.byref(st))
    assert rc == st.code
    return st


def removed_ids(result, kernel: str) -> set[str]:
    k = next(k for k in result.manifest["kernels"] if k["name"] == kernel)
    return {r["obligation"] for r in k["checks"]["removed"]}


def bounds_verdicts(result, kernel: str) -> dict[str, str]:
    k = next(k for k in result.manifest["kernels"] if k["name"] == kernel)
    return {o["id"]: o["status"] for o in k["proof"]["obligations"] if o["kind"] == "bounds"}


def c_host_reference() -> dict:
    """What examples/c_host/main.c (and main_cuda.c) compute, on the simulator."""
    module = compile_file(C_HOST / "kernels.py")
    k = {name: module.kernel(name).mir for name in module.kernel_names}
    n, m, r, c = 1000, 777, 13, 17
    i = np.arange(n)
    x = (np.float32(0.5) * i.astype(np.float32) - np.float32(3.0)).astype(np.float32)
    y = (np.float32(1.0) / (i + 1).astype(np.float32)).astype(np.float32)
    vk.launch(k["saxpy"], n, inputs=[x, y, np.float32(2.5)], block_dim=128, device="cpu")
    idx = ((np.arange(m) * 37) % n).astype(np.int32)
    out = np.full(m, -1.0, np.float32)
    vk.launch(k["gather"], m, inputs=[x, idx, out], block_dim=64, device="cpu")
    img = (((np.arange(r * c) * 7) % 11) - 2.0).astype(np.float32).reshape(r, c)
    blurred = np.zeros((r, c), np.float32)
    vk.launch(k["blur_rows"], (r, c), inputs=[img, blurred], block_dim=32, device="cpu")
    return {"saxpy": y, "gather": out, "blur_rows": blurred.ravel()}


def parse_host_output(stdout: str) -> tuple[dict, dict]:
    """(outputs by kernel, (code, line, message) by call) from the C host's output."""
    outputs, statuses = {}, {}
    for line in stdout.splitlines():
        head, _, rest = line.partition(" ")
        if head == "status":
            what, code, src_line, message = rest.split(" ", 3)
            statuses[what] = (int(code), int(src_line), message)
        elif head != "no-device":
            count, *values = rest.split()
            assert int(count) == len(values)
            outputs[head] = np.array([np.float32(v) for v in values], np.float32)
    return outputs, statuses
