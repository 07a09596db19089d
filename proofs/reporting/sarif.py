"""SARIF 2.1.0 reports for code scanning (JUnit XML is proofs.reporting.junit).

SARIF invariants: one run; one rule per obligation kind plus
`compile-error`, each with a description and help text; one result per
failed obligation (level error), per unknown one (level warning) and per
kernel or file that does not compile (error), each with a stable
`partialFingerprints["verikern/v1"]` (proofs.reporting.fingerprint) and, for failures,
the counterexample in its properties and, when the kernel has a suggested
contract, a `fix` inserting its `@vk.requires(lambda ...)` lines above the
kernel's `def`; the artifacts carry the sha256 of
each source file, and the run's properties carry the scope of every kernel
(assumptions, budgets, MIR hash), the versions and the options. The log
validates against the OASIS 2.1.0 schema.
"""
from __future__ import annotations

from typing import Any, Iterable

from verikern.version import __version__
from verikern.mir.nodes import SourceLoc
from verikern.proofs.reporting.fingerprint import VERSION as FP_KEY, engine_of, error_fingerprint, fingerprints
from verikern.proofs.obligations import KernelReport, KernelStatus, ObligationKind, Status
from verikern.proofs.reporting.common import (
    EXPLANATION, KIND_TEXT, SCHEMA_VERSION, RunContext, finding_loc, json_safe, sources_of, status_counts,
)
from verikern.proofs.reporting.paste import suggestion_inserts

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/verikern/verikern"

_HELP = {
    ObligationKind.BOUNDS: "Every array index must stay inside its array on every launch the requires "
                           "admit. Guard the access (if i < a.shape[0]) or state the shape relation "
                           "with vk.requires.",
    ObligationKind.RACE: "Two distinct threads must not access one element without a barrier between "
                         "them when at least one writes and not both are atomic. Add vk.sync_threads(), "
                         "use an atomic, or give each thread its own element.",
    ObligationKind.DIVERGENCE: "Every live thread of a block must reach each barrier the same number "
                               "of times. Make the condition or loop around the barrier uniform "
                               "across the block.",
    ObligationKind.ASSERT: "An assert must hold for every thread of every admitted launch and every "
                           "array content.",
    ObligationKind.INVARIANT: "A vk.invariant hint must hold on loop entry and be kept by every "
                              "iteration; the prover proves it, never trusts it.",
    ObligationKind.DIV_ZERO: "An integer division or modulo must never have a zero divisor, and on "
                             "int32/int64 must never divide INT_MIN by -1 (the CPU traps). Guard "
                             "it or require the divisor nonzero (positive where the dividend can "
                             "be INT_MIN).",
    ObligationKind.UNINIT: "Shared memory starts uninitialised: every shared element a thread reads "
                           "(by a load or an atomic) must have been written earlier in the launch by "
                           "a thread of its block, before a barrier the reader passed or earlier in "
                           "the reader's own program order. Write the halo and padding elements too.",
    ObligationKind.UNASSIGNED: "A variable assigned only under a condition (or in a loop body) may be "
                               "read after it only on paths that assigned it: Warp reads an "
                               "indeterminate value on the others. Assign it before the if or loop, "
                               "or read it only under the condition that assigned it.",
}


def _sarif_location(loc: SourceLoc) -> dict:
    physical: dict = {"artifactLocation": {"uri": loc.file.replace("\\", "/")}}
    if loc.line >= 1:
        region = {"startLine": loc.line}
        if loc.col >= 1:
            region["startColumn"] = loc.col
        physical["region"] = region
    return {"physicalLocation": physical}


def _suggestion_fix(r: KernelReport) -> dict | None:
    """A SARIF `fix` adding the kernel's suggested contract: the decorator
    lines inserted (an empty deleted region) at column 1 of the `def` line,
    indented as the `def` is, and `import verikern as vk` after the file's
    imports when it lacks it; None without a suggestion."""
    if r.status is not KernelStatus.FAILED or not r.suggested_decorators or r.line < 1:
        return None

    try:
        source = open(r.file, encoding="utf-8").read()
    except (OSError, ValueError):
        return None
    verdict = "proved" if r.proved_under_suggestion else "not proved"
    inserts = suggestion_inserts(source, r.line, r.suggested_decorators)
    return {
        "description": {"text": f"Add the suggested contract of {r.kernel} (the kernel is {verdict} "
                                "under it; a suggestion, not a proof)"},
        "artifactChanges": [{
            "artifactLocation": {"uri": r.file.replace("\\", "/")},
            "replacements": [{
                "deletedRegion": {"startLine": line, "startColumn": 1, "endLine": line,
                                  "endColumn": 1},
                "insertedContent": {"text": inserted},
            } for line, inserted in inserts],
        }],
    }


def _rules() -> list[dict]:
    rules = []
    for k in ObligationKind:
        rules.append({"id": k.value, "name": k.name.title().replace("_", ""),
                      "shortDescription": {"text": KIND_TEXT[k]},
                      "fullDescription": {"text": EXPLANATION[k]},
                      "help": {"text": _HELP[k], "markdown": f"**{KIND_TEXT[k]}**: {_HELP[k]}"},
                      "defaultConfiguration": {"level": "error"},
                      "properties": {"tags": ["correctness", "gpu"]}})
    text = "The kernel must compile: verikern proves nothing about a kernel it cannot compile."
    rules.append({"id": "compile-error", "name": "CompileError",
                  "shortDescription": {"text": "the kernel does not compile"},
                  "fullDescription": {"text": text}, "help": {"text": text},
                  "defaultConfiguration": {"level": "error"}})
    text = ("A generic kernel is proved only for every instantiation Warp can create at launch; "
            "the ones verikern did not enumerate leave it unknown.")
    rules.append({"id": "generic-instances", "name": "GenericInstances",
                  "shortDescription": {"text": "instantiations of a generic kernel not enumerated"},
                  "fullDescription": {"text": text}, "help": {"text": text},
                  "defaultConfiguration": {"level": "warning"}})
    return rules


def to_sarif_data(reports: Iterable[KernelReport], context: RunContext | None = None) -> dict:
    """The SARIF 2.1.0 log (see module docstring)."""
    from verikern.proofs.reporting.scope import (  # lazy: z3 (reporting.scope)
        HARDWARE_LIMITS, NOT_CHECKED, array_bound, versions,
    )

    reports = list(reports)
    context = context or RunContext()
    rules = _rules()
    rule_index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = []
    texts: dict = {}
    for r in reports:
        if r.status is KernelStatus.ERROR:
            results.append({
                "ruleId": "compile-error", "ruleIndex": rule_index["compile-error"], "level": "error",
                "message": {"text": r.error or "the kernel does not compile"},
                "locations": [_sarif_location(SourceLoc(r.file, r.line, 1))],
                "partialFingerprints": {FP_KEY: error_fingerprint(r)},
            })
            continue
        if r.status is KernelStatus.UNKNOWN and not r.obligations:   # a generic kernel's rest
            results.append({
                "ruleId": "generic-instances", "ruleIndex": rule_index["generic-instances"],
                "level": "warning", "message": {"text": r.error or "unknown"},
                "locations": [_sarif_location(SourceLoc(r.file, r.line, 1))],
                "partialFingerprints": {FP_KEY: error_fingerprint(r)},
            })
            continue
        fix = _suggestion_fix(r)
        for ob, fp in zip(r.obligations, fingerprints(r, texts)):
            if ob.status is Status.PROVED:
                continue
            failed = ob.status is Status.FAILED
            text = ob.message if failed else f"unknown: {ob.reason or ob.message}"
            result = {
                "ruleId": ob.kind.value, "ruleIndex": rule_index[ob.kind.value],
                "level": "error" if failed else "warning",
                "message": {"text": f"{r.kernel}: {text}"},
                "locations": [_sarif_location(finding_loc(ob.loc, r))],
                "partialFingerprints": {FP_KEY: fp},
                "properties": json_safe({"kernel": r.kernel, "status": ob.status.value,
                                         "confirmed": ob.confirmed, "reason": ob.reason,
                                         "engine": engine_of(ob), "cached": r.cached,
                                         "counterexample": ob.counterexample.to_json() if ob.counterexample else None}),
            }
            if ob.other_loc is not None:
                result["relatedLocations"] = [dict(_sarif_location(finding_loc(ob.other_loc, r)), id=1,
                                                   message={"text": "the other access"})]
            if fix is not None and failed:
                result["fixes"] = [fix]
            results.append(result)
    v = versions()
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if context.command:
        invocation["commandLine"] = " ".join(context.command)
        invocation["arguments"] = list(context.command[1:])
    artifacts = []
    for src in sources_of(reports):
        art = {"location": {"uri": src["path"].replace("\\", "/")}}
        if src["sha256"]:
            art["hashes"] = {"sha-256": src["sha256"]}
        artifacts.append(art)
    kernels = [json_safe({"file": r.file, "kernel": r.kernel, "status": r.status.value, "cached": r.cached,
                          "scope": r.scope.to_json() if r.scope is not None else None,
                          **({"type_oblivious": {"covers": list(r.covers)} if r.covers is not None
                              else {"covered_by": r.covered_by}}
                             if r.covers is not None or r.covered_by else {}),
                          **({"suggested_requires": list(r.suggested_requires),
                              "proved_under_suggestion": r.proved_under_suggestion}
                             if r.suggested_requires else {})}) for r in reports]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "verikern", "version": __version__, "semanticVersion": __version__,
                                "informationUri": INFORMATION_URI, "rules": rules}},
            "invocations": [invocation],
            "artifacts": artifacts,
            "results": results,
            "properties": {"schema_version": SCHEMA_VERSION, "versions": v,
                           "options": json_safe(dict(context.options)),
                           "assumptions": {"hardware_limits": list(HARDWARE_LIMITS),
                                           "array_bound": array_bound(context.options.get("max_array_bytes")),
                                           "not_checked": list(NOT_CHECKED)},
                           "summary": status_counts(reports), "kernels": kernels},
        }],
    }
