"""The admissibility check tries one thread with every array dim and integer
scalar 1 first (`LaunchModel.unit_probe`): every size product is then a
constant. Kernels of many 2-D arrays and integer scalars (nvalchemi's L-BFGS
loops) spent their proof's whole meter on this check before; a kernel whose
requires exclude that launch still finds one among the other probes."""
from __future__ import annotations

import logging
import re

from verikern.proofs.pipeline import prove_mir

from shared_helpers import mir_of

MANY_ARRAYS = """
@vk.kernel
def many(a: vk.array(dtype=vk.vec3, ndim=2), b: vk.array(dtype=vk.vec3, ndim=2),
         c: vk.array(dtype=vk.float32, ndim=2), d: vk.array(dtype=vk.float32, ndim=2),
         e: vk.array(dtype=vk.float32, ndim=2), f: vk.array(dtype=vk.vec3),
         step: vk.int32, m: vk.int32, n: vk.int32, per: vk.int32):
    t = vk.tid()
    start = t * per
    for k in range(start, vk.min(start + per, n)):
        f[k] = a[step % m, k] + b[step % m, k] * c[step % m, 0] / d[0, step % m] + e[0, 0] * vk.vec3(1.0)
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
        m = re.search(r"\.\d+\.(admissible[\w+-]*): (\w+) \((\d+) z3 units\)", r.getMessage())
        if m and ".suggest." not in r.getMessage():
            out.append((m.group(2), int(m.group(3))))
    return out


def test_many_multi_dimensional_arrays_are_admitted_by_the_first_probe_at_once(caplog):
    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):
        prove_mir(mir_of(MANY_ARRAYS, header=True), file="many.py")
    asked = _admissibility(caplog)
    assert asked and asked[0][0] == "sat" and asked[0][1] < 50_000, asked


def test_requires_that_exclude_the_unit_launch_are_admitted_by_a_later_probe(caplog):
    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):
        report = prove_mir(mir_of(WIDE_ONLY, header=True), file="wide.py")
    assert report.status.value == "proved", [o.message for o in report.obligations]
    asked = _admissibility(caplog)
    assert asked[0][0] == "unsat" and any(answer == "sat" for answer, _ in asked[1:]), asked
