"""`verikern trace` over the shared corpus, against the prover's expected verdicts.

A race in a trace is a real race, so a kernel whose header does not expect a
race must never show one; a race kernel whose run completes must show one.
Every ok_/race_ kernel must get generated inputs (no input error)."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from corpus_loader import ArraySpec, corpus_kernel, load_corpus


CASES = load_corpus()


# Small explicit shapes where the launch-shaped defaults make long inner loops.
SMALL_SHAPES = {
    "matmul_tiled": ["--size", "a=16,32", "--size", "b=32,16", "--size", "c=16,16"],
    "stride_row": ["--size", "grad=128,3,4", "--size", "contribs=128,36", "--size", "out=128,3"],
}


#: Races that need more threads than the default launch has (a narrow atomic
#: counter repeats a value only after 2**16 increments), or scalars that the
#: generated inputs rarely pick (a row-major fill races only when its row count
#: exceeds 1 and fits the launch): traced on the launch of their race witness,
#: with the witness's scalar parameters and array shapes.
WITNESS_LAUNCH = frozenset({
    "race_arrival_order_uint16_ticket_wraps",
    "bounds_flat_index_int64_contract_column_past_row",
})


def _launch_args(case) -> list[str]:
    """The corpus header's launch if it has one (or, for WITNESS_LAUNCH, its
    race witness's); else two blocks' worth of threads (1-D) or two rows of
    one block (2-D)."""
    if case.name in WITNESS_LAUNCH:
        w = next(w for w in case.witnesses if w.kind == "race")
        fixed = []
        for name, value in w.args:
            if isinstance(value, ArraySpec):
                fixed += ["--size", f"{name}={','.join(str(d) for d in value.shape)}"]
            else:
                fixed += ["--param", f"{name}={value}"]
        return ["--block-dim", str(w.block_dim), "--dim", ",".join(str(d) for d in w.dims), *fixed]
    kernel = corpus_kernel(case).mir
    args = [a for key, extra in SMALL_SHAPES.items() if key in case.name for a in extra]
    if case.option("--block-dim"):
        args += ["--block-dim", case.option("--block-dim")]
    block = int(case.option("--block-dim") or (kernel.block_dim if kernel else 0) or 64)
    if case.option("--dim"):
        return args + ["--dim", case.option("--dim")]
    ndim = kernel.launch_ndim if kernel else 1
    dims = {1: f"{2 * block}", 2: f"2,{block}", 3: f"2,2,{block}"}.get(ndim, "2,2,2,8")
    return args + ["--dim", dims]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_trace_agrees_with_expected_verdict(case):
    result = CliRunner().invoke(
        __import__("verikern.cli.trace", fromlist=["command"]).command,
        [str(case.path), "--format", "json", *_launch_args(case),
         *(["--kernel", case.kernel] if case.kernel else [])], catch_exceptions=False)
    doc = json.loads(result.output)
    expects_race = "race" in case.failing_kinds
    if not expects_race:
        assert doc["races"] == [], f"{case.name}: trace found a race the corpus says is impossible"
    elif doc["status"] not in ("runtime-error", "input-error"):
        assert doc["races"], f"{case.name}: the run completed but showed no race"
        assert all(r["file"] == str(case.path) for r in doc["races"])
    if case.name.startswith(("ok_", "race_")):
        assert doc["status"] != "input-error", doc["error"]
    if case.expect_status == "proved":
        assert result.exit_code == 0 and doc["status"] == "ok", doc["error"]
