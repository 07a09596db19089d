"""The shared kernel corpus (tests/corpus/*.py) is well formed: a valid
header, a description line, exactly one kernel that compiles, a balance of
correct and buggy kernels, and every obligation kind covered."""
from __future__ import annotations

from collections import Counter

import pytest

from corpus_loader import CORPUS_DIR, compiled, corpus_kernel, load_corpus
from verikern.app.kernel_names import definition_of

KINDS = {"bounds", "race", "divergence", "assert", "div-zero", "invariant", "uninit", "unassigned"}
CASES = load_corpus()


def test_corpus_size_and_balance():
    assert len(CASES) >= 90
    proved = sum(c.expect_status == "proved" for c in CASES)
    assert 0.35 <= proved / len(CASES) <= 0.65


def test_every_kind_is_covered():
    counts = Counter(k for c in CASES for k in c.failing_kinds)
    assert set(counts) == KINDS
    for kind in ("bounds", "race", "divergence"):
        assert counts[kind] >= 5, counts
    for kind in ("assert", "div-zero", "invariant", "uninit", "unassigned"):
        assert counts[kind] >= 2, counts


def test_some_files_use_warp_names():
    warp_files = [c for c in CASES if "import warp as wp" in c.path.read_text()]
    assert len(warp_files) >= 3


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_corpus_file_header_and_compiles(case):
    lines = case.path.read_text().splitlines()
    header = [ln for ln in lines if ln.startswith("#")][:3]
    assert lines[0].startswith("# expect: ")
    assert case.failing_kinds <= KINDS
    assert (case.expect_status == "failed") == bool(case.failing_kinds)
    prefix = "ok_" if case.expect_status == "proved" else None
    if prefix:
        assert case.name.startswith(prefix), "correct kernels are named ok_*"
    else:
        assert not case.name.startswith("ok_")
        # buggy kernels say under which launch the bug shows
        assert "Witness" in case.path.read_text(), "buggy kernels describe a witness"
    description = [ln for ln in header if not ln.startswith(("# expect:", "# prove-args:"))]
    assert description and len(description[0]) > 30, "a line saying what the kernel does"
    for flag in ("--block-dim", "--dim"):
        value = case.option(flag)
        if value is not None:
            assert int(value) >= 1
    result = compiled(case.path)
    assert not result.errors, [e.render() for e in result.errors]
    names = {definition_of(k.name) for k in result.kernels}
    assert len(names) == 1, ("one kernel per corpus file (a generic kernel's instances, and a "
                             "configuration's, count as one)")
    assert (len(result.kernels) > 1) == (case.kernel is not None), \
        "a file of several instances names the one the one-kernel layers run with '# kernel:'"
    for k in result.kernels:
        if k.unknown:     # a generic kernel's `kernel[...]`: its type-oblivious proof's kernel, or the
            # refusal the header names (`# no-type-oblivious-proof: WORD`)
            if case.no_opaque is not None:
                assert k.opaque is None and case.no_opaque in (k.opaque_refusal or ""), k.opaque_refusal
            else:
                assert k.opaque is not None, k.opaque_refusal
            continue
        assert k.error is None, k.error.render()
        assert k.mir is not None
    assert corpus_kernel(case).mir is not None


def test_corpus_dir_has_only_kernel_files():
    assert {p.suffix for p in CORPUS_DIR.iterdir() if p.is_file()} <= {".py"}
