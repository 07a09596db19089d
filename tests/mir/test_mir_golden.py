"""Golden tests of every MIR pass: tests/mir/golden/<pass>/<case>.in.mir is
parsed and verified, the pass runs, the result is verified and printed, and
the text must equal <case>.out.mir (written by hand-reviewed `--update-goldens`
runs, see tests/goldens.py).

The inputs are written by hand in MIR text (docs/MIR.md, "Text format"); a
first comment line `; options: key=value flag ...` passes options to the pass
(peel: `iterations=N`, `outer_only`). The peel goldens end with the SiteMap as
comments (each copied block, the block it copies and its peeled iterations).
Every expected file is MIR itself: it parses back to the pass's output.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from goldens import check_golden
from verikern.mir import format_kernel, verify
from verikern.mir.parser import parse_kernel
from verikern.mir.passes import PASSES, run_default_pipeline
from verikern.mir.passes.peel import peel_loops

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(GOLDEN.glob("*/*.in.mir"))
_OPTIONS = re.compile(r"^; options:(.*)$", re.M)


def _options(text: str) -> dict:
    m = _OPTIONS.search(text)
    opts = {}
    for word in (m.group(1).split() if m else ()):
        key, eq, value = word.partition("=")
        opts[key] = int(value) if eq else True
    return opts


def _peel(kernel, opts):
    peeled, sites = peel_loops(kernel, opts.get("iterations", 1),
                               outer_only=opts.get("outer_only", False))
    lines = ["; sites: copied block <- block of the input (peeled iterations)"]
    for label, origin in sites.origin.items():
        if sites.iterations.get(label):
            lines.append(f";   {label} <- {origin} ({sites.describe(label)})")
    return peeled, "\n".join(lines) + "\n"


def _one_pass(p):
    def run(kernel, opts):
        assert not opts, f"{p.name} takes no options"
        return p.run(kernel), ""
    return run


#: golden folder -> run(kernel, options) -> (kernel, trailing comment lines)
RUNNERS = {p.name.replace("-", "_"): _one_pass(p) for p in PASSES}
RUNNERS["peel"] = _peel
RUNNERS["pipeline"] = lambda k, opts: (run_default_pipeline(k, check=True), "")


def test_every_pass_has_golden_cases():
    folders = {d.name for d in GOLDEN.iterdir() if d.is_dir()}
    assert folders == set(RUNNERS)
    for name in RUNNERS:
        assert len(list((GOLDEN / name).glob("*.in.mir"))) >= 2 or name == "pipeline", name
    stale = [p.name for p in GOLDEN.glob("*/*.out.mir")
             if not p.with_name(p.name.replace(".out.mir", ".in.mir")).exists()]
    assert stale == [], f"expected outputs without an input: {stale}"


@pytest.mark.parametrize("case", CASES, ids=[f"{p.parent.name}/{p.name[:-7]}" for p in CASES])
def test_pass_output_matches_golden(case, update_goldens):
    text = case.read_text(encoding="utf-8")
    kernel = parse_kernel(text, f"{case.parent.name}/{case.name}")
    verify(kernel)
    out_kernel, trailer = RUNNERS[case.parent.name](kernel, _options(text))
    verify(out_kernel)
    assert out_kernel != kernel, "a golden case must exercise the pass (it changed nothing)"
    printed = format_kernel(out_kernel)
    header = f"; {case.parent.name} of {case.name} (regenerate: pytest --update-goldens)\n"
    expected = case.with_name(case.name.replace(".in.mir", ".out.mir"))
    check_golden(expected, header + printed + trailer, update_goldens)
    assert format_kernel(parse_kernel(expected.read_text(encoding="utf-8"))) == printed
