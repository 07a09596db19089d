"""The report's lines about a type-oblivious proof (proofs/reporting/common.py):
`kernel[...]` lists the enumerated instances it covers (none: it says only
that it covers every instantiation not enumerated), an instance names the
proof that covers it."""
from __future__ import annotations

from verikern.proofs.obligations import KernelReport, KernelStatus
from verikern.proofs.reporting.common import type_oblivious_lines


def test_the_covered_instances_are_listed_and_none_reads_as_a_sentence():
    more = KernelReport("g.py", "k[...]", KernelStatus.PROVED, 0.0, covers=("k[float32]", "k[int8]"))
    (line,) = type_oblivious_lines(more)
    assert line.endswith("it covers k[float32], k[int8], and every instantiation not enumerated")
    (alone,) = type_oblivious_lines(KernelReport("g.py", "k[...]", KernelStatus.PROVED, 0.0, covers=()))
    assert alone.endswith("it covers every instantiation not enumerated")
    covered = KernelReport("g.py", "k[int8]", KernelStatus.PROVED, 0.0, covered_by="k[...]")
    assert type_oblivious_lines(covered) == ["proved by the type-oblivious proof of k[...], not on its own"]
