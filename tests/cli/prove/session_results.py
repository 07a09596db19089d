"""Session-level results of the prove tests: the mutation score and the
differential check's per-kind coverage, printed in the terminal summary.

Tests report through `record_property` ("mutant", "mutation-drops",
"differential"), which pytest-xdist carries from the workers to the
controller's `pytest_runtest_logreport`, so the numbers are whole-session
ones with or without xdist. Once every mutant of a set has run (a `-k`
subset is reported as partial and not judged), a score below the set's
floor (`mutation_set.SCORE_FLOOR`) fails the session; so does, once every
differential seed has run, a kind checked fewer times than its floor.

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
    """The differential check's totals over the seeds that ran; once all of
    them ran, a kind below its floor (test_prove_differential.KIND_FLOOR), or
    no launch checked past an earlier error, fails the session."""
    runs = {d["case"]: d for d in _RESULTS["differential"]}
    if not runs:
        return []
    from test_prove_differential import KIND_FLOOR

    total: Counter = Counter()
    for d in runs.values():
        total.update(d["checked"])
    of = next(iter(runs.values()))["of"]
    launches = sum(d["launches"] for d in runs.values())
    focused = sum(d["focused"] for d in runs.values())
    checked = ", ".join(f"{k} {v}" for k, v in sorted(total.items()))
    complete = len(runs) == of
    lines = [f"differential check ({len(runs)} of {of} seeds, {launches} completed or focused launches, "
             f"{focused} focused): proved obligations checked per kind: {checked}"
             + ("" if complete else " (partial run: floors not checked)")]
    if complete:
        short = {k: (total[k], floor) for k, floor in KIND_FLOOR.items() if total[k] < floor}
        problems = ([f"per-kind coverage below its floor (checked, floor): {short}"] if short else []) + \
            (["no launch was checked on the threads past an earlier error"] if not focused else [])
        for problem in problems:
            text = f"differential check: {problem} (tests/cli/prove/test_prove_differential.py)"
            if text not in _FLOOR_FAILURES:
                _FLOOR_FAILURES.append(text)
    return lines


def judge(session):
    if hasattr(session.config, "workerinput"):
        return
    _mutation_lines()
    _differential_lines()
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
