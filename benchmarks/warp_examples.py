"""Warp's own example kernels through verikern: compile, then prove.

Reads the example files of the installed warp-lang in place (never copies
them, never imports warp: the package folder is found with
`importlib.util.find_spec`, or given with --warp-dir), compiles every kernel
named in benchmarks/data/warp-examples-in-scope.txt with
`verikern.frontend.compile_source`, proves those that compile with
`verikern.proofs.pipeline.prove_mir`, and prints per kernel: compiled or the
first error (rule and message), the verdict, for a failed kernel the
suggested contract (`prove_mir(..., suggest=True)`) and whether it is proved
under it, and the totals.

    python benchmarks/warp_examples.py [--warp-dir DIR] [--no-prove] [--no-suggest]
                                       [--budget B] [--only SUBSTRING] [--shard K/N]
                                       [--json OUT]
"""
from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
IN_SCOPE = HERE / "data" / "warp-examples-in-scope.txt"


@dataclass(frozen=True)
class Entry:
    """One in-scope kernel: `path` relative to the folder holding `warp/`."""

    path: str
    line: int
    name: str
    nesting: str


def read_in_scope(path: Path = IN_SCOPE) -> list[Entry]:
    out = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        where, nesting, *_ = raw.split("\t") + ["", ""]
        file, line, name = where.rsplit(":", 2)
        out.append(Entry(file, int(line), name, nesting))
    return out


def warp_root(warp_dir: str | None) -> Path:
    """The folder that holds the `warp` package (entries start with `warp/`)."""
    if warp_dir:
        p = Path(warp_dir).resolve()
        return p.parent if p.name == "warp" else p
    spec = importlib.util.find_spec("warp")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("warp-lang is not installed: pip install warp-lang, or pass --warp-dir")
    return Path(list(spec.submodule_search_locations)[0]).parent


def _prove_kwargs(budget: float | None, suggest: bool = True) -> dict:
    """The budget keyword the driver accepts (`budget`: millions of z3
    resource units per check; older drivers took `timeout`), and `suggest`."""
    from verikern.proofs.pipeline import prove_mir

    params = inspect.signature(prove_mir).parameters
    out = {"suggest": True} if suggest and "suggest" in params else {}
    if budget is None:
        return out
    for key in ("budget", "timeout"):
        if key in params:
            return {**out, key: budget}
    return out


def _find_kernel(module, entry: Entry):
    """The kernel result of `entry` (by name, nearest to its line)."""
    same = [k for k in module.kernels if k.name == entry.name]
    if not same:
        return None
    return min(same, key=lambda k: abs(k.loc.line - entry.line))


def run(entries, root: Path, prove: bool, budget: float | None, out=sys.stdout,
        suggest: bool = True) -> list[dict]:
    from verikern.frontend import compile_source

    modules: dict[str, object] = {}
    rows = []
    kwargs = _prove_kwargs(budget, suggest)
    for e in entries:
        src_path = root / e.path
        if e.path not in modules:
            try:
                text = src_path.read_text(encoding="utf-8")
            except OSError as err:
                modules[e.path] = err
            else:
                modules[e.path] = compile_source(text, e.path)
        module = modules[e.path]
        row = {"kernel": f"{e.path}:{e.line}:{e.name}", "compiled": False, "error": None,
               "verdict": None, "seconds": 0.0, "suggested_requires": None,
               "proved_under_suggestion": None}
        if isinstance(module, OSError):
            row["error"] = f"io: {module}"
        else:
            kr = _find_kernel(module, e)
            if kr is None:
                errs = [x for x in module.errors]
                row["error"] = (f"{errs[0].rule}: {errs[0].message} (line {errs[0].loc.line})"
                                if errs else "not-found: no kernel of this name was found")
            elif kr.error is not None:
                row["error"] = f"{kr.error.rule}: {kr.error.message} (line {kr.error.loc.line})"
            else:
                row["compiled"] = True
                if prove:
                    from verikern.proofs.pipeline import prove_mir

                    t0 = time.perf_counter()
                    rep = prove_mir(kr.mir, file=e.path, **kwargs)
                    row["seconds"] = round(time.perf_counter() - t0, 3)
                    row["verdict"] = rep.status.value
                    if getattr(rep, "suggested_requires", ()):
                        row["suggested_requires"] = list(rep.suggested_requires)
                        row["proved_under_suggestion"] = rep.proved_under_suggestion
                    if rep.status.value == "error":
                        row["error"] = (rep.error or "").splitlines()[0]
        rows.append(row)
        verdict = row["verdict"] or ("compiled" if row["compiled"] else "ERROR")
        detail = f"  {row['seconds']:.2f}s" if row["verdict"] else ""
        print(f"{verdict:9s} {row['kernel']}{detail}", file=out)
        if row["error"] and not row["compiled"]:
            print(f"          {row['error']}", file=out)
        if row["verdict"] == "failed":
            contract = " and ".join(row["suggested_requires"] or []) or "(none)"
            under = {True: "proved", False: "not proved", None: "-"}[row["proved_under_suggestion"]]
            print(f"          suggested contract: {contract}; under it: {under}", file=out)
        out.flush()
    return rows


def totals(rows) -> dict:
    t = {"kernels": len(rows), "compiled": sum(r["compiled"] for r in rows)}
    for v in ("proved", "failed", "unknown", "error"):
        t[v] = sum(r["verdict"] == v for r in rows)
    failed = [r for r in rows if r["verdict"] == "failed"]
    t["suggested"] = sum(bool(r.get("suggested_requires")) for r in failed)
    t["proved_under_suggestion"] = sum(r.get("proved_under_suggestion") is True for r in failed)
    return t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warp-dir", help="the installed warp package folder (default: found)")
    ap.add_argument("--list", type=Path, default=IN_SCOPE, help="the in-scope kernel list")
    ap.add_argument("--no-prove", action="store_true", help="compile only")
    ap.add_argument("--no-suggest", action="store_true",
                    help="do not search suggested contracts for failed kernels")
    ap.add_argument("--budget", type=float, default=None,
                    help="prover budget per check (the driver's unit; default: its default)")
    ap.add_argument("--only", help="only kernels whose file:line:name contains this")
    ap.add_argument("--shard", metavar="K/N", default=None,
                    help="only every N-th kernel of the list, starting at the K-th (0-based), "
                         "to split a run over processes")
    ap.add_argument("--json", type=Path, help="also write the rows and totals as JSON")
    args = ap.parse_args(argv)
    entries = read_in_scope(args.list)
    if args.only:
        entries = [e for e in entries if args.only in f"{e.path}:{e.line}:{e.name}"]
    if args.shard:
        k, n = (int(v) for v in args.shard.split("/"))
        if not 0 <= k < n:
            raise SystemExit(f"bad --shard {args.shard}: give K/N with 0 <= K < N")
        entries = entries[k::n]
    root = warp_root(args.warp_dir)
    start = time.perf_counter()
    rows = run(entries, root, not args.no_prove, args.budget, suggest=not args.no_suggest)
    t = totals(rows)
    print(f"\ncompiled {t['compiled']}/{t['kernels']}; proved {t['proved']}, failed {t['failed']}, "
          f"unknown {t['unknown']}, error {t['error']} ({time.perf_counter() - start:.1f} s)")
    if t["failed"] and not args.no_suggest:
        share = 100.0 * t["proved_under_suggestion"] / t["failed"]
        print(f"failed {t['failed']}: a suggested contract for {t['suggested']}, proved under it "
              f"{t['proved_under_suggestion']} ({share:.0f}%)")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "totals": t}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
