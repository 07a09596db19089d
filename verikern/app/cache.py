"""The proof cache: a kernel's verdict, kept on disk by what determines it.

Key: sha256 over the cache format, the file path as given, the kernel name,
the sha256 of the kernel's MIR text, the options (dims, block_dim, budget,
replay, max_array_bytes, suggest, the engines and CBMC's unwinding depth),
the versions of verikern and z3, the sha256 of verikern's own code
(`code_hash`), the sha256 of every project module the file imports from,
and the tools outside it that decide (`tool_fields`): the
cross-check solver and its version (`--cross-check`) and, when CBMC is an
engine, its binary's path, sha256 and version. The verdict is a function of
exactly these (budgets count solver work, not seconds: proofs.deciding.budget), so a
hit gives the report a fresh run would give, bit for bit apart from timing.
A run that dumps its SMT queries (`--dump-smt`) never reads the cache (an
entry holds no queries; `answers_from_cache`), it only writes its report.
tests/proofs/reporting/test_cache_matrix.py lists what must miss and what may hit.

Entries are JSON files `<key[:2]>/<key>.json` holding the key, the report,
a sha256 checksum of the canonical report text and, under "computed", when
and by which versions the verdict was computed (the sign-off document's
provenance; not covered by the checksum and never read as a verdict: a
missing or malformed one only leaves the time unrecorded). Invariants:
- an entry is used only if it parses, its format and key match the lookup
  and its checksum matches its content; anything else (corrupt, truncated,
  foreign, from another version) is ignored, never trusted, and the kernel
  is proved again (the entry is then overwritten);
- writes are atomic (a temporary file in the same folder, then os.replace),
  so several processes or machines may share one folder;
- only reports that a re-run would reproduce are stored: never ERROR
  reports, never verdicts that hit the wall-clock safety net.

The default folder is the platform's cache folder (platformdirs when
installed, else $XDG_CACHE_HOME or ~/.cache) + "/verikern/proofs";
$VERIKERN_CACHE_DIR overrides it, and VERIKERN_NO_CACHE=1 turns the cache off
for every command that has not been given --cache-dir.
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
import importlib

import z3

from verikern.version import __version__
from verikern.mir.nodes import SourceLoc
from verikern.proofs.obligations import (
    Counterexample, ExampleLaunch, KernelReport, KernelStatus, Obligation, ObligationKind, Status,
)
from verikern.proofs.deciding.budget import SAFETY_NET_S
from verikern.proofs.deciding import crosscheck
from verikern.proofs.deciding.cbmc import cbmc_identity
from verikern.proofs.reporting.render import json_safe
from verikern.proofs.reporting.scope import Scope
from verikern.encoders.smt.launch import DEFAULT_MAX_ARRAY_BYTES

FORMAT = 8   # 2: second opinions, disagreements and engines are kept; 3: a suggestion's example;
#              4: the kernel's total (the units a report charges, suggestion_unknown, allowance);
#              5: the total charges each query's and recompile's Python work (budget.charge_query):
#              a report cached before spent its allowance differently; 6: it charges each
#              formula asserted, evaluated in a model and instruction encoded too (and a model's
#              launch and truths are evaluated once): the same allowance buys different work;
#              7: a recompiled copy is charged by its characters and MIR instructions, not per
#              instance, and a spent total's reason says what spent it (budget_reasons);
#              8: a report keeps its suggestion's re-proved MIR (pasted_mir_sha), which a
#              typing premise's search reuses: a cached run spends what a fresh one does


def default_cache_dir() -> Path:
    """$VERIKERN_CACHE_DIR, else the platform's user cache folder + verikern/proofs."""
    if os.environ.get("VERIKERN_CACHE_DIR"):
        return Path(os.environ["VERIKERN_CACHE_DIR"])
    try:
        import platformdirs  # lazy: optional dependency

        base = Path(platformdirs.user_cache_dir("verikern", appauthor=False))
    except ImportError:
        root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = Path(root) / "verikern"
    return base / "proofs"


def cache_disabled_by_env(environ=os.environ) -> bool:
    return environ.get("VERIKERN_NO_CACHE", "").strip().lower() not in ("", "0", "false", "no")


@functools.lru_cache(maxsize=1)
def code_hash() -> str:
    """sha256 of verikern's own Python code (the package and its encoders,
    backends and proofs): a development build whose prover changed never
    reads verdicts cached by another build of the same version."""

    digest = hashlib.sha256()
    for name in ("verikern", "verikern.encoders", "verikern.backends", "verikern.proofs"):
        init = importlib.import_module(name).__file__
        assert init is not None   # regular packages, each with an __init__.py
        root = Path(init).parent
        for path in sorted(root.rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel.startswith("selftest_corpus/") or "__pycache__" in rel:
                continue
            digest.update(f"{name}/{rel}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def tool_fields(engine: str = "z3", cross_check: str | None = None) -> dict:
    """The key fields naming the deciding tools outside verikern and z3: the
    cross-check solver and its version when `--cross-check` set one
    (ProofOptions.cross_check), CBMC's identity
    (proofs.deciding.cbmc.cbmc_identity) when it is an engine."""
    out: dict = {}
    second = cross_check or None
    if second:
        out["cross_check"] = [second, crosscheck.version(second) or "unknown"]
    if "cbmc" in str(engine).split(","):
        out["cbmc"] = cbmc_identity()
    return out


def answers_from_cache(dump_smt: str | None = None) -> bool:
    """False when this run must decide every query itself: `--dump-smt`
    (ProofOptions.dump_smt) writes the queries a proof asks, and a cached
    report asks none."""
    return not dump_smt


def _canonical(data) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


@dataclass(frozen=True)
class ProofCache:
    """A cache folder (picklable: it travels to worker processes and Dask workers)."""

    root: str

    # ------------------------------------------------------------------ keys
    @staticmethod
    def key(*, file: str, kernel: str, mir_sha256: str, dims, block_dim, budget, replay: bool,
            max_array_bytes: int | None = None, suggest: bool = False, engine: str = "z3",
            unwind: int | None = None, tools: dict | None = None, imports=(),
            allowance: tuple[int, ...] | None = None, reuse: tuple[str, ...] = ()) -> str:
        """The entry's key: every field that can change the report (module
        docstring); `tools`: `tool_fields(engine)` of the run; `imports`:
        (path, sha256) of every project module the file imports from;
        `allowance`: the kernel's total, this part's share of it and the z3
        units that share had left when this report's proof started
        (proofs.deciding.budget.KernelTotal.allowance; None: no total), which
        bound what it decides; `reuse`: the decorators of a contract a sibling
        instance was proved under, tried on this one before a search of its own."""
        fields = {"format": FORMAT, "file": str(file), "kernel": kernel, "mir": mir_sha256,
                  "dims": list(dims) if dims is not None else None,
                  "block_dim": int(block_dim) if block_dim is not None else None,
                  "budget": float(budget) if budget is not None else None, "replay": bool(replay),
                  "max_array_bytes": int(max_array_bytes if max_array_bytes is not None
                                         else DEFAULT_MAX_ARRAY_BYTES),
                  "verikern": __version__, "code": code_hash(), "z3": z3.get_version_string()}
        if suggest:                  # reports with a suggested contract are other entries
            fields["suggest"] = True
        if engine != "z3":           # another engine's verdicts are other entries
            fields["engine"], fields["unwind"] = engine, unwind
        if tools:                    # a second solver's or CBMC's verdicts are other entries
            fields["tools"] = tools
        if imports:                  # a change in an imported project module: another entry
            fields["imports"] = [list(i) for i in imports]
        if allowance is not None:    # less of the kernel's total left: maybe fewer decided
            fields["allowance"] = [int(a) for a in allowance]
        if reuse:                    # a sibling's contract tried first: maybe another suggestion
            fields["reuse"] = list(reuse)
        return hashlib.sha256(_canonical(fields).encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return Path(self.root) / key[:2] / f"{key}.json"

    # ------------------------------------------------------------------ get / put
    def get(self, key: str) -> KernelReport | None:
        """The stored report for `key`, or None (missing, or not trustworthy)."""
        try:
            entry = json.loads(self._path(key).read_text(encoding="utf-8"))
            if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("key") != key:
                return None
            report = entry["report"]
            if entry.get("checksum") != hashlib.sha256(_canonical(report).encode()).hexdigest():
                return None
            return _with_computed(report_from_data(report), entry.get("computed"))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def put(self, key: str, report: KernelReport) -> bool:
        """Store `report` atomically; False when it is not cacheable or the write failed."""
        if not cacheable(report):
            return False
        data = report_to_data(report)
        entry = {"format": FORMAT, "key": key, "report": data,
                 "checksum": hashlib.sha256(_canonical(data).encode()).hexdigest()}
        if report.computed_at is not None:
            entry["computed"] = {"at": report.computed_at, "by": [list(p) for p in report.computed_by]}
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write(_canonical(entry))
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(OSError):    # best effort: the write failed anyway
                    os.unlink(tmp)
                raise
        except OSError:
            return False       # a read-only or full cache never costs a verdict
        return True


def _with_computed(report: KernelReport, computed) -> KernelReport:
    """The report with the entry's provenance (when and by which versions it
    was computed); a missing or malformed one leaves it unrecorded (provenance
    only: the verdict is checked by the checksum, this is not)."""
    try:
        at = computed["at"]
        by = tuple((str(name), str(version)) for name, version in computed["by"])
    except (TypeError, KeyError, ValueError):
        return report
    if not isinstance(at, str):
        return report
    return dataclasses.replace(report, computed_at=at, computed_by=by)


def cacheable(report: KernelReport) -> bool:
    """Only verdicts that any re-run reproduces (see module docstring)."""

    if report.status is KernelStatus.ERROR:
        return False
    marker = f"safety net of {SAFETY_NET_S:g} s"
    return not any(ob.reason and marker in ob.reason for ob in report.obligations)


# ------------------------------------------------------------------ (de)serialisation
def _cex_to_data(cex: Counterexample | None):
    """Every field of the counterexample (whatever fields the class has), JSON-safe."""

    if cex is None:
        return None
    out = {}
    for f in dataclasses.fields(cex):
        value = getattr(cex, f.name)
        if f.name == "arrays":
            value = {k: [[int(i), v] for i, v in m.items()] for k, m in value.items()}
        out[f.name] = json_safe(value)
    return out


def _cex_from_data(d) -> Counterexample | None:
    if d is None:
        return None
    names = {f.name for f in dataclasses.fields(Counterexample)}
    if set(d) != names:
        raise ValueError("the entry's counterexample has other fields than this version's")
    kw = dict(d)
    kw["dims"] = tuple(d["dims"])
    kw["threads"] = tuple(tuple(t) for t in d["threads"])
    kw["shapes"] = {k: tuple(v) for k, v in d["shapes"].items()}
    kw["arrays"] = {k: {int(i): v for i, v in pairs} for k, pairs in d["arrays"].items()}
    return Counterexample(**kw)


def _loc_data(loc: SourceLoc | None):
    return None if loc is None else [loc.file, loc.line, loc.col]


def _loc_from(d) -> SourceLoc | None:
    return None if d is None else SourceLoc(d[0], d[1], d[2])


def _required_loc(d) -> SourceLoc:
    """An obligation's location: always stored, so a missing one makes the
    entry untrustworthy (TypeError: `get` treats the entry as a miss)."""
    if d is None:
        raise TypeError("an obligation without a location")
    return SourceLoc(d[0], d[1], d[2])


def report_to_data(r: KernelReport) -> dict:
    return {"file": r.file, "kernel": r.kernel, "status": r.status.value, "seconds": r.seconds,
            "line": r.line, "error": r.error,
            "suggested_requires": list(r.suggested_requires),
            "suggested_decorators": list(r.suggested_decorators),
            "proved_under_suggestion": r.proved_under_suggestion,
            "suggested_example": (r.suggested_example.to_json()
                                  if r.suggested_example is not None else None),
            "scope": r.scope.to_json() if r.scope is not None else None,
            "suggestion_unknown": r.suggestion_unknown, "units": r.units,
            "pasted_mir_sha": r.pasted_mir_sha,
            "obligations": [{"kind": ob.kind.value, "loc": _loc_data(ob.loc), "status": ob.status.value,
                             "message": ob.message, "counterexample": _cex_to_data(ob.counterexample),
                             "confirmed": ob.confirmed, "reason": ob.reason,
                             "other_loc": _loc_data(ob.other_loc), "seconds": ob.seconds,
                             "cross_checked": list(ob.cross_checked),
                             "disagreements": list(ob.disagreements),
                             "confirmed_by": list(ob.confirmed_by),
                             "engines": [list(e) for e in ob.engines]}
                            for ob in r.obligations]}


def report_from_data(d: dict) -> KernelReport:
    obs = tuple(Obligation(ObligationKind(o["kind"]), _required_loc(o["loc"]), Status(o["status"]),
                           o["message"], _cex_from_data(o["counterexample"]), o["confirmed"],
                           o["reason"], _loc_from(o["other_loc"]), float(o["seconds"]),
                           cross_checked=tuple(o["cross_checked"]),
                           disagreements=tuple(o["disagreements"]),
                           confirmed_by=tuple(o["confirmed_by"]),
                           engines=tuple((e, v) for e, v in o["engines"]))
                for o in d["obligations"])
    return KernelReport(d["file"], d["kernel"], KernelStatus(d["status"]), float(d["seconds"]), obs,
                        d["error"], d["line"],
                        scope=Scope.from_json(d["scope"]) if d["scope"] is not None else None,
                        suggested_requires=tuple(d.get("suggested_requires") or ()),
                        suggested_decorators=tuple(d.get("suggested_decorators") or ()),
                        proved_under_suggestion=d.get("proved_under_suggestion"),
                        suggested_example=(ExampleLaunch.from_json(d["suggested_example"])
                                           if d.get("suggested_example") is not None else None),
                        suggestion_unknown=d.get("suggestion_unknown"), units=int(d.get("units") or 0),
                        pasted_mir_sha=d.get("pasted_mir_sha"))


def with_cached(report: KernelReport, seconds: float) -> KernelReport:
    return dataclasses.replace(report, cached=True, seconds=seconds)
