"""Session-level results of the prove tests: the mutation score and the
differential check's per-kind coverage, printed in the terminal summary.

Tests report through `record_property` ("mutant", "mutation-drops",
"differential"), which pytest-xdist carries from the workers to the
controller's `pytest_runtest_logreport`, so the numbers are whole-session
ones with or without xdist. Once every mutant of a set has run (a `-k`
subset is reported as partial and not judged), a score below the set's
floor (`mutation_set.SCORE_FLOOR`) fails the session.

The reporting hooks are called from tests/conftest.py: under xdist the
controller never collects, so only conftests it loads at start-up (the
suite's root one) see its reports. `deselect_full_set` is called from
tests/cli/prove/conftest.py: the `full` mutation set is deselected unless
the `-m` expression names `slow`.
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict

import pytest

_RESULTS: dict[str, list] = defaultdict(list)
_FLOOR_FAILURES: list[str] = []
_FULL_SET_TEST = "test_mutation.py::test_full_mutant_is_not_proved"


def deselect_full_set(config, items):
    if "slow" in (config.option.markexpr or ""):
        return
    full = [it for it in items if _FULL_SET_TEST in it.nodeid]
    if full:
        config.hook.pytest_deselected(items=full)
        items[:] = [it for it in items if _FULL_SET_TEST not in it.nodeid]


def record(report):
    if report.when != "call":
        return
    for name, value in report.user_properties:
        if name in ("mutant", "mutation-drops", "differential"):
            _RESULTS[name].append(json.loads(value))


def _mutation_lines():
    from mutation_set import SCORE_FLOOR, score

    lines = []
    by_set = defaultdict(list)
    for r in _RESULTS["mutant"]:
        by_set[r["set"]].append(r)
    for name, results in sorted(by_set.items()):
        caught, n, frac = score(results)
        size = results[0]["size"]
        outcomes = Counter(r["outcome"] for r in results)
        complete = n == size
        verdict = (f"floor {SCORE_FLOOR[name]:.0%}" if complete
                   else f"partial run: {n} of {size} mutants, floor not checked")
        lines.append(f"mutation score ({name} set): {caught}/{n} caught = {frac:.1%} ({verdict}); "
                     f"unknown {outcomes['unknown']}, proved {outcomes['proved']} "
                     f"({sum(1 for r in results if r['allowed'])} allow-listed), "
                     f"error {outcomes['error']}, refused {outcomes['refused']}; "
                     f"{sum(r['cpu_s'] for r in results):.0f} s CPU")
        kinds = defaultdict(Counter)
        for r in results:
            kinds[r["kind"]][r["outcome"]] += 1
        lines.append("  by kind: " + ", ".join(
            f"{k} {c['caught'] + c['refused']}/{sum(c.values())}" for k, c in sorted(kinds.items())))
        unknown = sorted(f"{r['key'][0]}:{r['key'][1]}" for r in results if r["outcome"] == "unknown")
        if unknown:
            lines.append(f"  unknown: {', '.join(unknown[:10])}" + (" ..." if len(unknown) > 10 else ""))
        if complete and frac < SCORE_FLOOR[name] and not any(name in f for f in _FLOOR_FAILURES):
            _FLOOR_FAILURES.append(f"mutation score of the {name} set {frac:.1%} is below its floor "
                                   f"{SCORE_FLOOR[name]:.0%} (tests/cli/prove/mutation_set.py)")
    for d in _RESULTS["mutation-drops"][:1]:
        drops = d["drops"]
        text = "; ".join(f"{v} {k}" for k, v in sorted(drops.items())) or "none"
        lines.append(f"mutants generated: {d['candidates']}; dropped {sum(drops.values())}: {text}")
    return lines


def _differential_lines():
    lines = []
    for d in _RESULTS["differential"]:
        checked = ", ".join(f"{k} {v}" for k, v in sorted(d["checked"].items()))
        lines.append(f"differential check ({d['seeds']} seeds, {d['launches']} completed or "
                     f"focused launches): proved obligations checked per kind: {checked}")
    return lines


def judge(session):
    if hasattr(session.config, "workerinput"):
        return
    _mutation_lines()
    if _FLOOR_FAILURES and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def summarize(terminalreporter):
    lines = _mutation_lines() + _differential_lines()
    if not lines and not _FLOOR_FAILURES:
        return
    terminalreporter.section("prover mutation score and differential coverage")
    for line in lines:
        terminalreporter.write_line(line)
    for failure in _FLOOR_FAILURES:
        terminalreporter.write_line(f"FAILED: {failure}", red=True, bold=True)
