"""The admissibility check tries one thread with every array dim and integer
scalar 1 first (`LaunchModel.unit_probe`): every size product is then a
constant. Kernels of many 2-D arrays and integer scalars (nvalchemi's L-BFGS
loops) spent their proof's whole meter on this check before; a kernel whose
requires exclude that launch still finds one among the other probes."""
from __future__ import annotations

import logging
import re

from verikern.proofs.deciding.budget import own_context
from verikern.proofs.deciding.prover_context import ProofContext
from verikern.proofs.deciding.session import SolverSession
from verikern.proofs.pipeline import prove_mir

from shared_helpers import mir_of

# the shape of nvalchemi's `_lbfgs_loop1_kernel`: ten arrays, six of them 2-D, four int scalars
MANY_ARRAYS = """import warp as wp


@wp.kernel
def many(forces: wp.array(dtype=wp.vec3), s_history: wp.array2d(dtype=wp.vec3),
         y_history: wp.array2d(dtype=wp.vec3), direction: wp.array(dtype=wp.vec3),
         batch_idx: wp.array(dtype=wp.int32), end: wp.array(dtype=wp.int32),
         n_loop: wp.array(dtype=wp.int32), ys: wp.array2d(dtype=wp.float32), yy: wp.array2d(dtype=wp.float32),
         alpha_hist: wp.array2d(dtype=wp.float32), beta_hist: wp.array2d(dtype=wp.float32),
         step: wp.int32, m: wp.int32, n_dofs: wp.int32, per: wp.int32):
    t = wp.tid()
    start = t * per
    for k in range(start, wp.min(start + per, n_dofs)):
        b = batch_idx[k]
        j = (end[b] - step + m) % m
        direction[k] = (direction[k] - alpha_hist[b, j] * y_history[j, k]
                        + s_history[j, k] * ys[b, j] / yy[b, j] * beta_hist[b, n_loop[b]] + forces[k])
"""

# the requires exclude the one-thread launch of unit dims: the later probes find one
WIDE_ONLY = """
@vk.kernel
def wide(a: vk.array(dtype=vk.float32, ndim=2), n: vk.int32):
    vk.requires(a.shape[0] >= 8 and a.shape[1] == n and n > 3 and vk.launch_dim() == a.shape[0])
    i = vk.tid()
    a[i, n - 1] = 1.0
"""


def _admissibility(caplog) -> list[tuple[str, int]]:
    out = []
    for r in caplog.records:
        m = re.search(r"(?:^|\.)\d+\.(admissible[\w+-]*): (\w+) \((\d+) z3 units\)", r.getMessage())
        if m and ".suggest." not in r.getMessage():
            out.append((m.group(2), int(m.group(3))))
    return out


def test_many_multi_dimensional_arrays_are_admitted_by_the_unit_launch(caplog):
    # the proof's context alone (it checks admissibility before any obligation is decided),
    # in a z3 context of its own as a proof's: the units of a fresh process
    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"), own_context():
        ProofContext(mir_of(MANY_ARRAYS), None, None, SolverSession())
    asked = _admissibility(caplog)
    # the first probe (67 threads, free dims) is undecided, then the unit launch admits it
    # at once; before, every probe and the full query were undecided (14 million units)
    assert [a for a, _ in asked] == ["unknown", "unknown", "sat"] and asked[2][1] < 50_000, asked
    assert sum(units for _, units in asked) < 1_000_000, asked


def test_requires_that_exclude_the_unit_launch_are_admitted_by_a_later_probe(caplog):
    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):
        report = prove_mir(mir_of(WIDE_ONLY, header=True), file="wide.py")
    assert report.status.value == "proved", [o.message for o in report.obligations]
    asked = _admissibility(caplog)
    assert asked[0][0] == "unsat" and any(answer == "sat" for answer, _ in asked[1:]), asked
