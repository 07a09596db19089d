"""The type-oblivious proof over the generic kernels of released Warp projects
(issue 26): for each generic module-level kernel, whether its instantiations
not enumerated (`kernel[...]`) get an opaque kernel, the refusal when not,
and with --prove whether the opaque kernel is proved; then the refusals
ranked by cause, so every session re-measures the same way.

The projects, their kernels and the sample are benchmarks/warp_projects.py's
(the same wheels in the same cache, read in place, never imported or
executed). A kernel is taken as generic when an annotation of one of its
parameters names `Any` (read with `ast`; `typing.Any` under another name is
missed). Each file's generic kernels are compiled by this script in a child
process (`--file`, cwd the project's root, no solver unless --prove), and
each kernel ends in one state:

- `error`: a compile error (of the file, or of the kernel: "no typing of the
  generic kernel type-checks" among them);
- `enumerated`: every instantiation is one verikern enumerates (no `[...]`);
- `refused`: `[...]` has no opaque kernel, for the reason given (the cause,
  with names and numbers blanked as warp_projects.cause_of does);
- `opaque`: `[...]` has an opaque kernel (not proved: without --prove);
- with --prove, `proved`, `suggested` (proved for every instantiation under
  the contract suggested on the opaque kernel, pasted and proved again) or
  `not-proved`: the type-oblivious proof at the default options with
  `--suggest`, as `verikern prove` runs it (`prove_oblivious`, a kernel's
  work). With `--prove-new BEFORE.json` only the kernels that BEFORE.json
  (an earlier run) does not list as `opaque`, `proved`, `suggested` or
  `not-proved` are proved: what a change made opaque.

With `--rerun BEFORE.json --matching TEXT` only the kernels whose row in
BEFORE.json has TEXT in its reason are measured again, the other rows kept
as they are (a change that lifts one refusal can change only the kernels
refused for it: the refusals are tried in a fixed order).

    python benchmarks/generic_refusals.py [--jobs 2] [--sample N | --only S]
        [--prove [--prove-new BEFORE.json]] [--rerun BEFORE.json --matching TEXT]
        [--budget B] [--json OUT] [--report OUT]
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

import warp_projects as wpj

FURTHEST = "the furthest was refused with:"
STATES = ("error", "refused", "not-proved", "opaque", "suggested", "proved", "enumerated")
#: the states of a kernel with an opaque kernel
OPAQUE = frozenset({"not-proved", "opaque", "suggested", "proved"})


def is_generic(node: ast.FunctionDef) -> bool:
    """A kernel with a parameter whose annotation names `Any` (`Any`, `typing.Any`,
    `wp.array(dtype=Any)`)."""
    return any(a.annotation is not None and any(
        (isinstance(n, ast.Name) and n.id == "Any") or (isinstance(n, ast.Attribute) and n.attr == "Any")
        for n in ast.walk(a.annotation)) for a in node.args.args)


def generic_sites(sites: list[wpj.KernelSite]) -> list[wpj.KernelSite]:
    """The generic kernels among `sites` (each file read once)."""
    out, trees = [], {}
    for s in sites:
        key = (s.root, s.file)
        if key not in trees:
            trees[key] = {n.name: n for n in ast.parse(Path(s.root, s.file).read_text(
                encoding="utf-8", errors="replace")).body if isinstance(n, ast.FunctionDef)}
        node = trees[key].get(s.name)
        if node is not None and is_generic(node):
            out.append(s)
    return out


def file_states(file: str, names: list[str], prove: set[str], budget: float | None) -> dict:
    """{kernel: {"state", "why"}} of the generic kernels `names` of `file` (the child's work;
    `prove`: the kernels whose opaque kernel is proved)."""
    from verikern.app.prove import ProofOptions  # lazy: only the --file child imports verikern
    from verikern.app.type_oblivious import prove_oblivious  # lazy: as above
    from verikern.frontend.driver import compile_file  # lazy: as above
    from verikern.proofs.deciding.budget import kernel_work, kernel_work_limit, per_check_units  # lazy: as above
    module = compile_file(file, kernels=names)
    out: dict[str, dict] = {}
    if module.errors:
        why = module.errors[0].render()
        return {n: {"state": "error", "why": why} for n in names}
    opts = ProofOptions.of(budget=budget, suggest=True)
    data = Path(file).read_bytes()
    for name in names:
        mine = [k for k in module.kernels if k.name.split("[")[0] == name]
        more = next((k for k in mine if k.unknown), None)
        bad = next((k for k in mine if k.error is not None and not k.unknown), None)
        if not mine:
            out[name] = {"state": "error", "why": "no kernel compiled under this name"}
        elif bad is not None:
            out[name] = {"state": "error", "why": bad.error.render()}
        elif more is None:
            out[name] = {"state": "enumerated", "why": ""}
        elif more.opaque is None:
            out[name] = {"state": "refused", "why": more.opaque_refusal or "no plan"}
        elif name not in prove:
            out[name] = {"state": "opaque", "why": ""}
        else:
            with kernel_work(kernel_work_limit(per_check_units(opts.budget))):
                outcome = prove_oblivious(more, file, opts, data)
            state = "proved" if outcome.report is not None else "suggested" if outcome.suggested else "not-proved"
            out[name] = {"state": state, "why": outcome.why}
    return out


def run_file(sites: list[wpj.KernelSite], prove: set[str], budget: float | None) -> list[dict]:
    """The rows of one file's generic kernels, from a child process (`prove`: the kernels
    whose opaque kernel it proves)."""
    first = sites[0]
    cmd = [sys.executable, str(Path(__file__).resolve()), "--file", first.file,
           "--kernels", ",".join(s.name for s in sites), "--prove-kernels", ",".join(sorted(prove))]
    if budget is not None:
        cmd += ["--budget", str(budget)]
    start, cpu = time.perf_counter(), wpj._children_cpu()
    proc = subprocess.run(cmd, cwd=first.root, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - start, wpj._children_cpu() - cpu
    try:
        states = json.loads(proc.stdout)
    except json.JSONDecodeError:
        text = f"the child exited {proc.returncode} without a report: {proc.stderr.strip()[-400:]}"
        states = {s.name: {"state": "error", "why": text} for s in sites}
    return [{"project": s.project, "file": s.file, "line": s.line, "kernel": s.name,
             **states.get(s.name, {"state": "error", "why": "no row"}),
             "file_cpu_s": round(cpu, 2), "file_wall_s": round(wall, 2)} for s in sites]


def category(row: dict) -> str:
    """The row's cause: its message grouped as warp_projects groups causes (a carrier not
    found: by the error of the typing that got furthest, which the refusal names)."""
    head, furthest, rest = row["why"].partition(FURTHEST)
    if furthest:
        return "no float32-based typing; furthest: " + wpj.cause_of(rest)
    return wpj.cause_of(head) if head else ""


def render(rows: list[dict], top: int = 15) -> str:
    """Counts per project and overall, and the refusals (and errors) ranked by cause."""
    lines = []
    projects = list(dict.fromkeys(r["project"] for r in rows))
    for name, mine in [*((p, [r for r in rows if r["project"] == p]) for p in projects), ("all", rows)]:
        c = Counter(r["state"] for r in mine)
        lines.append(f"{name}: {len(mine)} generic kernels; " + ", ".join(
            f"{s} {c[s]}" for s in STATES if c.get(s)))
    for state in ("refused", "not-proved", "error"):   # the proved ones: by kernel, below
        ranked = Counter(category(r) for r in rows if r["state"] == state).most_common(top)
        if ranked:
            lines.append(f"{state}, by cause:")
            lines += [f"  {n:4}  {cause}" for cause, n in ranked]
    done = [r for r in rows if r["state"] in ("proved", "suggested")]
    if done:
        lines.append("proved for every instantiation (or under the suggestion):")
        lines += [f"  {r['state']:9} {r['project']}:{r['file']}:{r['line']} {r['kernel']}" for r in done]
    cpu = sum({(r["project"], r["file"]): r["file_cpu_s"] for r in rows}.values())
    lines.append(f"child CPU seconds, all files: {cpu:.0f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", default=os.environ.get("VERIKERN_PROJECTS_CACHE", str(wpj.DEFAULT_CACHE)))
    ap.add_argument("--jobs", "-j", type=int, default=2)
    ap.add_argument("--sample", type=int, help="N generic kernels spread evenly over all of them")
    ap.add_argument("--only", help="only kernels whose project:file name contains this")
    ap.add_argument("--prove", action="store_true", help="prove each opaque kernel (z3, default options)")
    ap.add_argument("--prove-new", help="with --prove: only kernels this earlier --json file has without "
                                        "an opaque kernel")
    ap.add_argument("--rerun", help="an earlier --json file: measure again only its rows --matching")
    ap.add_argument("--matching", default="", help="with --rerun: text of the reasons to measure again")
    ap.add_argument("--budget", type=float, help="verikern's --budget for --prove")
    ap.add_argument("--json", help="write every kernel's row here")
    ap.add_argument("--report", help="only print the report of an earlier --json file")
    ap.add_argument("--file", help=argparse.SUPPRESS)        # the child: one file
    ap.add_argument("--kernels", default="", help=argparse.SUPPRESS)
    ap.add_argument("--prove-kernels", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.file:
        proving = set(filter(None, args.prove_kernels.split(",")))
        print(json.dumps(file_states(args.file, args.kernels.split(","), proving, args.budget)))
        return 0
    if args.report:
        print(render(json.loads(Path(args.report).read_text(encoding="utf-8"))))
        return 0
    cache = Path(args.cache).expanduser()
    sites: list[wpj.KernelSite] = []
    for spec in wpj.read_project_list():
        sites += wpj.find_kernels(spec, wpj.unpack(wpj.download(spec, cache / "wheels"), cache / "src"))
    if args.only:
        sites = [s for s in sites if args.only in f"{s.project}:{s.file}"]
    sites = wpj.sample(generic_sites(sites), None, args.sample)
    kept: list[dict] = []
    if args.rerun:
        earlier = json.loads(Path(args.rerun).read_text(encoding="utf-8"))
        again = {(r["project"], r["file"], r["kernel"]) for r in earlier if args.matching in r["why"]}
        kept = [r for r in earlier if (r["project"], r["file"], r["kernel"]) not in again]
        sites = [s for s in sites if (s.project, s.file, s.name) in again]
    files: dict[tuple, list[wpj.KernelSite]] = {}
    for s in sites:
        files.setdefault((s.root, s.file), []).append(s)
    print(f"{len(sites)} generic kernels in {len(files)} files, {args.jobs} jobs", file=sys.stderr, flush=True)
    known = set()
    if args.prove_new:
        known = {(r["project"], r["file"], r["kernel"]) for r in json.loads(Path(args.prove_new).read_text(
            encoding="utf-8")) if r["state"] in OPAQUE}
    rows: list[dict] = list(kept)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_file, group, {s.name for s in group if args.prove and (
            s.project, s.file, s.name) not in known}, args.budget) for group in files.values()]
        for done, fut in enumerate(as_completed(futures), 1):
            got = fut.result()
            rows += got
            print(f"[{done}/{len(files)}] {got[0]['project']} {got[0]['file']}: "
                  + ", ".join(f"{r['kernel']} {r['state']}" for r in got), file=sys.stderr, flush=True)
            if args.json:
                Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    print(render(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
