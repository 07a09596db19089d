"""JUnit XML for `verikern prove --format junit` (CI test views, docs/CI.md).

Invariants: one test suite per file (the tool versions as its properties),
one test case per kernel, one <failure> per failed obligation (with the
counterexample and whether the simulator confirmed it), one <error> per
unknown obligation (an unknown is not a pass) and per compile error; a
proved kernel has none; each suite's and the root's counts are the sums of
their test cases'.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Iterable

from verikern.proofs.obligations import KernelReport, KernelStatus, Status
from verikern.proofs.reporting.common import RunContext, counterexample_lines, finding_loc, scope_line


def render_junit(reports: Iterable[KernelReport], context: RunContext | None = None) -> str:
    """JUnit XML (see module docstring)."""
    from verikern.proofs.reporting.scope import versions  # lazy: z3 (reporting.scope)

    reports = list(reports)
    root = ET.Element("testsuites", name="verikern")
    suites: dict[str, ET.Element] = {}
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for r in reports:
        suite = suites.get(r.file)
        if suite is None:
            suite = suites[r.file] = ET.SubElement(root, "testsuite", name=r.file)
            props = ET.SubElement(suite, "properties")
            for key, value in versions().items():
                ET.SubElement(props, "property", name=key, value=value)
            for key in ("tests", "failures", "errors"):
                suite.set(key, "0")
        case = ET.SubElement(suite, "testcase", classname=r.file, name=r.kernel, time=f"{r.seconds:.3f}")
        counts = {"tests": 1, "failures": 0, "errors": 0}
        if r.status is KernelStatus.ERROR:
            first = (r.error or "error").splitlines()[0]
            el = ET.SubElement(case, "error", type="compile-error", message=first)
            el.text = r.error or ""
            counts["errors"] += 1
        if r.status is KernelStatus.UNKNOWN and not r.obligations:   # a generic kernel's rest
            el = ET.SubElement(case, "error", type="unknown", message=(r.error or "unknown").splitlines()[0])
            el.text = r.error or ""
            counts["errors"] += 1
        for ob in r.obligations:
            loc = finding_loc(ob.loc, r)
            if ob.status is Status.FAILED:
                el = ET.SubElement(case, "failure", type=ob.kind.value, message=f"{loc}: {ob.message}")
                verdict = {True: "confirmed", False: "NOT confirmed", None: "not replayed"}[ob.confirmed]
                el.text = "\n".join([*counterexample_lines(ob), f"simulator: {verdict}"]
                                    + ([f"reason: {ob.reason}"] if ob.reason else []))
                counts["failures"] += 1
            elif ob.status is Status.UNKNOWN:
                el = ET.SubElement(case, "error", type="unknown",
                                   message=f"{loc}: unknown: {ob.reason or ob.message}")
                el.text = ob.message
                counts["errors"] += 1
        assumed = scope_line(r)
        if assumed is not None:
            ET.SubElement(case, "system-out").text = assumed.strip()
        for key, n in counts.items():
            suite.set(key, str(int(suite.get(key, "0")) + n))
            totals[key] += n
    for key, n in totals.items():
        root.set(key, str(n))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
