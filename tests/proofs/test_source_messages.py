"""Messages name source expressions, never SSA values: an index, a divisor
or a wrapped operand that the MIR computes without a variable name is quoted
from the kernel's source (proofs/deciding/source_text.py)."""
from __future__ import annotations

import dataclasses
import os
import re
import sys

import pytest

from verikern.app.prove import prove_source
from verikern.frontend import compile_source
from verikern.proofs.deciding.prover import prove_kernel
from verikern.proofs.obligations import ObligationKind, Status

sys.path.insert(0, os.path.dirname(__file__))
from prover_helpers import deciding_only  # noqa: E402

SRC = '''import warp as wp


@wp.func
def pick(a: int, b: int) -> int:
    if a < b:
        return a
    return b + 1


@wp.kernel
def deep(x: wp.array(dtype=float), n: int, cy: int):
    i = wp.tid()
    x[((i * 2 + 1) * 3 + n) * 2 + cy] = 1.0


@wp.kernel
def builtin(x: wp.array(dtype=float), n: int):
    i = wp.tid()
    x[wp.min(i, n)] = 1.0


@wp.kernel
def select(x: wp.array(dtype=float), n: int):
    i = wp.tid()
    x[i + 1 if i < n else n] = 1.0


@wp.kernel
def func_result(x: wp.array(dtype=float), n: int):
    i = wp.tid()
    x[pick(i, n)] = 1.0


@wp.kernel
def load_index(x: wp.array(dtype=float), idx: wp.array(dtype=int)):
    i = wp.tid()
    if i + 1 < idx.shape[0]:
        x[idx[i] + idx[i + 1]] = 1.0


@wp.kernel
def divide(x: wp.array(dtype=int), n: int):
    i = wp.tid()
    if i < x.shape[0]:
        x[i] = i // wp.max(n, i)


@wp.kernel
def chain(x: wp.array(dtype=float), a: int, b: int, c: int):
    i = wp.tid()
    if i < x.shape[0]:
        x[a + b + c + i] = 1.0
'''
SSA = re.compile(r"%\d|\[\.\.\.\]")

EXPECTED = {        # kernel -> the expression its failed bounds (or div-zero) message names
    "deep": "index x[((((i * 2 + 1) * 3 + n) * 2) + cy)] is out of bounds: ",
    "builtin": "index x[wp.min(i, n)] is out of bounds: wp.min(i, n) = ",
    "select": "index x[i + 1 if i < n else n] is out of bounds: i + 1 if i < n else n = ",
    "func_result": "index x[pick(i, n)] is out of bounds: pick(i, n) = ",
    "load_index": "index x[(idx[i] + idx[i + 1])] is out of bounds: (idx[i] + idx[i + 1]) = ",
    "divide": "floor division by zero: divisor wp.max(n, i) = 0",
    "chain": "index x[(((a + b) + c) + i)] is out of bounds: ",
}


@pytest.fixture(scope="module")
def reports():
    """Every kernel's report; deep's decides its bounds alone (prover_helpers.deciding_only):
    its race, which a launch of 2**30 threads wraps into, cost 3 of the file's 4 CPU s. The
    other kernels' failed races still show that a race message names no SSA value."""
    others = sorted(set(EXPECTED) - {"deep"})
    out = {r.kernel: r for r in prove_source(SRC, "messages.py", kernel=others, suggest=False)}
    with deciding_only(ObligationKind.BOUNDS):
        (out["deep"],) = prove_source(SRC, "messages.py", kernel="deep", suggest=False)
    return out


@pytest.mark.parametrize("kernel", sorted(EXPECTED))
def test_a_failed_message_names_the_source_expression(reports, kernel):
    report = reports[kernel]
    messages = [ob.message for ob in report.obligations]
    assert not any(SSA.search(m) for m in messages), messages
    failed = [ob.message for ob in report.obligations if ob.status is Status.FAILED]
    assert any(m.startswith(EXPECTED[kernel]) for m in failed), failed


def test_a_wrap_note_names_operands_from_the_source():
    src = '''import warp as wp


@wp.kernel
def wraps(x: wp.array(dtype=float), n: int):
    i = wp.tid()
    if i < x.shape[0] and n > 0:
        x[wp.max(n, 65536) * wp.max(n, 65536) + i] = 1.0
'''
    (report,) = prove_source(src, "wraps.py", suggest=False)
    (ob,) = [o for o in report.obligations if o.status is Status.FAILED]
    (note,) = ob.counterexample.facts["wraps"]
    assert note.startswith("wp.max(n, 65536) * wp.max(n, 65536) = ") and "wraps to" in note
    assert not SSA.search(ob.message) and note in ob.message


def test_without_the_source_the_message_is_built_from_the_mir_and_says_so_plainly():
    """MIR read without its file (a kernel parsed from MIR text, say): no
    quote is invented; the index is rendered from the MIR as before."""
    module = compile_source(SRC, "messages.py")
    mir = dataclasses.replace(module.kernel("builtin").mir, source=None)
    failed = [ob for ob in prove_kernel(mir) if ob.status is Status.FAILED]
    assert failed and all("wp.min" not in ob.message for ob in failed)


def test_a_quote_is_taken_only_from_the_file_the_location_names():
    module = compile_source(SRC, "messages.py")
    other = SRC.replace("wp.min(i, n)", "wp.max(i, n)")
    mir = dataclasses.replace(module.kernel("builtin").mir, source=other)
    mir = dataclasses.replace(mir, loc=dataclasses.replace(mir.loc, file="elsewhere.py"))
    failed = [ob for ob in prove_kernel(mir) if ob.status is Status.FAILED]
    assert failed and all("wp.max" not in ob.message for ob in failed)
