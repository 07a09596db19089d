"""benchmarks/kernel_units.py: the figures it prints for a kernel are those of the kernel's
own prove -- its compile units are what the frontend's compile meter counted, its proof's
units what the kernel's total spent besides compiling -- and measuring changes no verdict."""
from __future__ import annotations

import json

from verikern.app.compile_budget import compile_budget
from verikern.app.prove import prove_file
from verikern.frontend import compile_file
from verikern.proofs.deciding import budget as work

from shared_helpers import BENCHMARKS, CORPUS, import_file

#: a kernel compiled and proved (0.55 million units) in a fifth of the tiled one's CPU: the
#: figures are checked against the same kernel's own counts, whatever its size
MATMUL = str(CORPUS / "ok_matmul_naive.py")


def test_the_figures_are_the_kernels_own_counts(tmp_path):
    bench = import_file(BENCHMARKS / "kernel_units.py", "kernel_units", keep=False)
    out = tmp_path / "units.json"
    assert bench.main([f"{MATMUL}:matmul_naive", "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())
    (meter,) = compile_file(MATMUL, **compile_budget(None)).work.values()
    assert row["compile_units"] == meter.spent > 0
    (total,) = row["totals"]
    assert total["limit"] == work.kernel_total_units(None, work.per_check_units(None))
    assert total["compiled"] == total["ledger"]["compiling"] == work.COMPILE_UNIT_WEIGHT * meter.spent
    (report,) = prove_file(MATMUL)
    assert row["proof_units"] == total["spent"] - total["compiled"] == report.units   # the same work
    assert row["exit"] == 0 and report.status.value == "proved"
    assert 0 < row["compile_cpu_s"] < row["cpu_s"] and row["ratio"] > 0
