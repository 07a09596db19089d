"""The prover's reports on a corpus case, proved once per test run.

Several test files check something about the same proof of a corpus case:
its verdicts (tests/cli/prove/test_corpus_verdicts.py), its confirmed
counterexamples replayed in C (tests/encoders/test_c_corpus.py), its SARIF
(tests/proofs/reporting/test_report_sarif.py). `case_reports(case)` is that
proof, `verikern prove <case> <its # prove-args:>` with replay, computed by
whichever test asks first and read by the others, in any xdist worker
(tests/run_shared.py).

Invariant: the key names everything the reports are a function of -- the
case's path and contents, the driver options its header gives, verikern's
code (`code_hash`) and z3's version; budgets count solver work, never
seconds, so the reports are the ones each test would have computed itself.
Reports are frozen dataclasses: a test reading them cannot change another's.
"""
from __future__ import annotations

import z3

import run_shared
from prove_args import driver_kwargs
from verikern.app.cache import code_hash
from verikern.app.prove import prove_file


def case_reports(case) -> tuple:
    """The KernelReports of `prove_file(case.path, **driver_kwargs(case.prove_args))`."""
    kwargs = driver_kwargs(case.prove_args)
    key = (code_hash(), z3.get_version_string(), str(case.path), case.path.read_bytes(),
           sorted(kwargs.items()))
    return run_shared.shared("corpus-reports", key,
                             lambda: tuple(prove_file(case.path, **kwargs)))
