"""A proof's z3 work does not depend on the process's history.

Every query of a proof gets the same answer for the same number of z3 units
whatever the process did before: `prove_kernel` (and the other entry points
of a proof's parts, called on their own) runs in a z3 context of its own with
the cyclic collector paused (budget.own_context). Before, a direct call
shared the process-wide context with everything earlier in the process: the
wide-last-dim tile row of test_geometry spent 1.97 million units on its
admissibility in a fresh process, 2.52 million after a 3-d fill was proved,
and 0.41 million when proved a second time (its terms were still there),
so its verdict at a budget of 2 million per check depended on the test order.

Each case records the -vv lines of every query (name, answer, units; the
`verikern.proofs.solver` log) and compares them exactly: after other proofs
and other z3 work in this process, and in fresh processes under other hash
seeds. The tile row's lines they are compared with are proved once per test
run (tests/run_shared.py), by whichever of the two tests asks first."""
from __future__ import annotations

import gc
import json
import logging
import os
import subprocess
import sys

import z3

sys.path.insert(0, os.path.dirname(__file__))

from prover_helpers import compile_kernel, prove_src, prove_src_only  # noqa: E402
# the wide-last-dim tile row, whose admissibility costs about 2 million units: the edge
# that made its verdict depend on the test order; and a 3-d fill to prove before it
from test_geometry import FILL3D, TILE_ROWS  # noqa: E402

import run_shared  # noqa: E402
from shared_helpers import ROOT  # noqa: E402
from verikern.app.cache import code_hash  # noqa: E402
from verikern.proofs.deciding.peeling import exact_counterexample  # noqa: E402
from verikern.proofs.obligations import ObligationKind, Status  # noqa: E402

#: A loop whose bound is off by one: an exact counterexample in peeled iterations.
LOOP_PAST_END = """
    @vk.kernel
    def k(a: vk.array(dtype=vk.float32), n: int):
        i = vk.tid()
        for j in range(n + 1):
            if j > 0:
                a[j] = 0.0
"""
BUDGET = 3          # million units per check, as test_geometry proves TILE_ROWS


class _Queries(logging.Handler):
    """The -vv lines of the solver's queries: `NAME: ANSWER (N z3 units)`."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def _queries(prove) -> list[str]:
    """Every query `prove()` asks, with its answer and z3 units, in order
    (`prove` asserts its own verdicts)."""
    log = logging.getLogger("verikern.proofs.solver")
    handler, level = _Queries(), log.level
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    try:
        prove()
    finally:
        log.removeHandler(handler)
        log.setLevel(level)
    assert handler.lines and all(line.endswith(" z3 units)") for line in handler.lines)
    return handler.lines


def _tile_rows() -> list[str]:
    def prove():
        assert {o.status for o in prove_src(TILE_ROWS, BUDGET)} == {Status.PROVED}
    return _queries(prove)


def _first_tile_rows() -> list[str]:
    """`_tile_rows()`, proved once per test run (in whichever process asks first, maybe
    another worker: the lines do not depend on the process) for both tests below to
    compare with: the first test's baseline before its other work, the second's in-run
    proof that the fresh processes must match."""
    key = (code_hash(), z3.get_version_string(), TILE_ROWS, BUDGET)
    return list(run_shared.shared("unit-determinism-tile-rows", key, lambda: tuple(_tile_rows())))


def _other_work() -> list:
    """What a test run does before: other proofs, terms in the process-wide
    z3 context (kept alive), a solver check there, garbage left for the
    cyclic collector."""
    prove_src(FILL3D, 0.5)
    dims = [z3.BitVec(f"D{k}", 8) for k in range(3)]
    s = z3.Solver()
    s.add(z3.ULT(dims[0] * dims[1], 100), dims[2] == dims[0] + 1)
    assert s.check() == z3.sat
    cycles = [[] for _ in range(2000)]
    for c in cycles:
        c.append(c)
    return [dims, s]


def test_a_proof_spends_the_same_units_on_every_query_after_other_work():
    first = _first_tile_rows()
    assert any("admissible" in line for line in first)
    kept = _other_work()
    assert _tile_rows() == first
    old = gc.get_threshold()
    try:
        gc.set_threshold(10)             # the collector would run inside the proof
        assert _tile_rows() == first
    finally:
        gc.set_threshold(*old)
    del kept


def test_the_exact_search_spends_the_same_units_on_its_own_after_other_work():
    kernel = compile_kernel(LOOP_PAST_END)
    # the failed bounds obligation the search starts from (only bounds decided)
    (ob,) = [o for o in prove_src_only(LOOP_PAST_END, ObligationKind.BOUNDS)
             if o.kind.value == "bounds"]

    def search():
        found = exact_counterexample(kernel, ob, budget=20_000_000)
        assert found is not None and found.status is Status.FAILED

    first = _queries(search)
    kept = _other_work()
    assert _queries(search) == first
    del kept


#: A fresh process that prints the query lines of TILE_ROWS's proof.
FRESH = """
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import test_unit_determinism as t
print(json.dumps(t._tile_rows()))
"""


def _in_fresh_process(hash_seed: str) -> list[str]:
    env = {"PYTHONHASHSEED": hash_seed, "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", FRESH, str(ROOT / "tests"),
                           os.path.dirname(__file__)], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_proof_spends_the_same_units_in_fresh_processes_under_other_hash_seeds():
    here = _first_tile_rows()
    assert _in_fresh_process("0") == here
    assert _in_fresh_process("12345") == here
