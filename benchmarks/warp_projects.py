"""Released Warp projects through `verikern prove`: how many of their kernels
compile, and how many end proved or proved under the suggested contract.

Downloads the wheels of benchmarks/data/warp-projects.txt (and any other
`pkg==ver` named on the command line) with `pip download --no-deps` into a
cache folder (default ~/.cache/verikern/warp-projects, or --cache /
$VERIKERN_PROJECTS_CACHE), unzips each into that cache and reads it there in
place -- nothing is copied into the repository, nothing of the projects is
imported or executed. Every module-level kernel of every module outside the
projects' tests (found by reading the source with `ast`) is proved by
`verikern prove FILE -k NAMES --format json --no-cache` (the CLI, with its
project-aware reading and the suggestion re-proof), in tasks of at most
--chunk kernels of one file, --jobs tasks at a time, one line of progress per
task on stderr.

A kernel's outcome is the worst over its reports (a generic kernel reports one
per instance): `error` (it, or its file, did not compile; or verikern refused
it), `failed` (a bug found and no suggested contract proved it), `unknown`,
`suggested` (failed as written, proved with its suggested contract pasted in:
the CLI's `proved_under_suggestion`), or `proved`. The report prints the
compile rate, the counts, the top causes of errors, unknowns and failures
(messages grouped with names and numbers blanked), and the median and slowest
kernels (a kernel's time is the sum of its reports' seconds), and beside them
each kernel's whole `verikern prove` process: median and largest wall and CPU
seconds, the slowest kernels by CPU and how many took more than CPU_TARGET_S
(CPU seconds do not grow with the machine's load; wall seconds do).

    python benchmarks/warp_projects.py [pkg==ver ...] [--jobs 2] [--chunk 4]
        [--limit N | --sample N [--skip-sample M]] [--budget B] [--timeout S] [--cache DIR]
        [--only SUBSTRING] [--generic-only] [--compiled-in F | --with-mir-in F]
        [--json OUT [--resume]] [--report OUT] [--compile-only]

Tasks are taken from each project in turn, so a run stopped early (--json is
written after every task) has measured every project; --resume keeps the
outcomes a --json file holds and proves only the other kernels.

--compile-only stops after MIR: each task's file is compiled by this script in a
child process (`--compile-file`, no solver), and a kernel whose every instance
compiles is `compiled`; the report then gives the compile rate and the top
causes of errors over all kernels in minutes. Its tasks are whole files (the
child compiles the whole file whatever kernels it is asked for) unless --chunk
says otherwise. A generic kernel with instantiations not enumerated and no
type-oblivious proof counts as compiled (`unknown`); the report also says how
many of those had no instance compile at all, and the rate without them.

--timeout is a wall-clock guard of this harness, off by default: a task that
runs past `S` seconds per kernel is split into single kernels, and a single
kernel past it is reported as `timeout` (not a verdict of verikern's).
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT_LIST = HERE / "data" / "warp-projects.txt"
DEFAULT_CACHE = Path.home() / ".cache" / "verikern" / "warp-projects"
MODULE_KERNEL = "<module>"      # the CLI's kernel name for a report about a whole file
# the order outcomes are combined in: a kernel's outcome is the worst of its reports'
OUTCOMES = ("error", "timeout", "failed", "unknown", "suggested", "proved", "compiled")
#: issue 26's target: no kernel's whole `verikern prove` process past this many CPU seconds
CPU_TARGET_S = 60.0


# ------------------------------------------------------------------ projects
def read_project_list(path: Path = PROJECT_LIST) -> list[str]:
    """The `pkg==ver` lines of `path` (comments and blank lines skipped)."""
    out = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            out.append(line)
    return out


def _dist_key(name: str) -> str:
    """A distribution name as wheel file names spell it (PEP 427): lower case, runs of -_. as _."""
    return re.sub(r"[-_.]+", "_", name).lower()


def cached_wheel(spec: str, wheels: Path) -> Path | None:
    """The wheel of `spec` (`pkg==ver`) already in `wheels`, if any."""
    name, _, version = spec.partition("==")
    prefix = f"{_dist_key(name)}-{version}-"
    for whl in sorted(wheels.glob("*.whl")):
        if whl.name.lower().startswith(prefix.lower()):
            return whl
    return None


def download(spec: str, wheels: Path) -> Path:
    """The wheel of `spec`, downloaded by `pip download --no-deps` unless cached."""
    found = cached_wheel(spec, wheels)
    if found is not None:
        return found
    if "==" not in spec:
        raise SystemExit(f"{spec}: name a project as pkg==version (the wheel is cached by version)")
    wheels.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                           "-q", "-d", str(wheels), spec], capture_output=True, text=True)
    found = cached_wheel(spec, wheels)
    if proc.returncode != 0 or found is None:
        raise SystemExit(f"{spec}: pip download failed:\n{proc.stderr.strip()[-2000:]}")
    return found


def unpack(wheel: Path, into: Path) -> Path:
    """`wheel` unzipped into `into/<wheel name>` (once; a marker file says it is complete)."""
    root = into / wheel.name[: -len(".whl")]
    marker = root / ".verikern-unpacked"
    if marker.is_file():
        return root
    with zipfile.ZipFile(wheel) as zf:
        for member in zf.namelist():
            target = (root / member).resolve()
            if not target.is_relative_to(root.resolve()):
                raise SystemExit(f"{wheel.name}: refusing the member {member!r} (outside the folder)")
        zf.extractall(root)
    marker.write_text(wheel.name + "\n", encoding="utf-8")
    return root


# ------------------------------------------------------------------ kernels
@dataclass(frozen=True)
class KernelSite:
    """A module-level kernel: `file` relative to `root` (the unpacked wheel)."""

    project: str
    root: str
    file: str
    line: int
    name: str


def is_test_path(rel: Path) -> bool:
    """A module of the project's tests (a tests/test folder, test_*.py, *_test.py, conftest.py)."""
    parts = [p.lower() for p in rel.parts]
    name = parts[-1]
    return (any(p in ("tests", "test", "testing") for p in parts[:-1]) or name.startswith("test_")
            or name.endswith("_test.py") or name == "conftest.py")


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    return ast.unparse(target)


def is_kernel_decorator(name: str) -> bool:
    """`wp.kernel`, `warp.kernel`, a bare `kernel`, or a project's own kernel decorator
    (`simdata.kernel`, wrapping `wp.kernel`): any dotted name ending in `kernel`."""
    return name == "kernel" or name.endswith(".kernel")


def module_kernels(source: str) -> list[tuple[int, str]]:
    """(line, name) of each function at the module's top level decorated as a Warp kernel."""
    out = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and any(
                is_kernel_decorator(_decorator_name(d)) for d in node.decorator_list):
            out.append((node.lineno, node.name))
    return out


def find_kernels(project: str, root: Path) -> list[KernelSite]:
    """Every module-level kernel of the .py files below `root` outside tests, in path order."""
    sites = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if is_test_path(rel) or any(p.endswith(".dist-info") for p in rel.parts):
            continue
        try:
            found = module_kernels(path.read_text(encoding="utf-8", errors="replace"))
        except SyntaxError:
            continue
        sites.extend(KernelSite(project, str(root), rel.as_posix(), line, name) for line, name in found)
    return sites


def sample(sites: list[KernelSite], limit: int | None, every: int | None) -> list[KernelSite]:
    """The first `limit` sites, or `every` sites spread evenly over the list (deterministic)."""
    if every is not None and every < len(sites):
        step = len(sites) / every
        sites = [sites[int(i * step)] for i in range(every)]
    return sites[:limit] if limit is not None else sites


def skip_sample(taken: list[KernelSite], sites: list[KernelSite], skip: int | None) -> list[KernelSite]:
    """`taken` less the sites that `sample(sites, None, skip)` takes (None: all of `taken`)."""
    if skip is None:
        return taken
    left_out = {_key(s) for s in sample(sites, None, skip)}
    return [s for s in taken if _key(s) not in left_out]


@dataclass(frozen=True)
class Task:
    """Kernels of one file proved by one `verikern prove` run."""

    sites: tuple[KernelSite, ...]


def shard(sites: list[KernelSite], chunk: int) -> list[Task]:
    """`sites` as tasks of at most `chunk` kernels of one file, in input order (a file's
    kernels stay together, so it is compiled once per task)."""
    tasks: list[Task] = []
    current: list[KernelSite] = []
    for site in sites:
        if current and (len(current) >= chunk or (site.root, site.file) != (current[0].root, current[0].file)):
            tasks.append(Task(tuple(current)))
            current = []
        current.append(site)
    if current:
        tasks.append(Task(tuple(current)))
    return tasks


def interleave(tasks: list[Task]) -> list[Task]:
    """`tasks` taken from each project in turn (each project's in order), so that a
    run stopped early has measured every project."""
    by_project: dict[str, list[Task]] = {}
    for t in tasks:
        by_project.setdefault(t.sites[0].project, []).append(t)
    queues = list(by_project.values())
    out: list[Task] = []
    for i in range(max((len(q) for q in queues), default=0)):
        out += [q[i] for q in queues if i < len(q)]
    return out


def _key(site: KernelSite) -> tuple:
    return (site.project, site.file, site.line, site.name)


def compiled_sites(sites: list[KernelSite], rows: list[dict]) -> list[KernelSite]:
    """The `sites` that a --compile-only --json file's `rows` list with outcome `compiled`
    (every instance compiled, none left unenumerated), in `sites` order."""
    keep = {(r["project"], r["file"], r["line"], r["kernel"]) for r in rows if r.get("outcome") == "compiled"}
    return [s for s in sites if _key(s) in keep]


def with_mir_sites(sites: list[KernelSite], rows: list[dict]) -> list[KernelSite]:
    """The `sites` that a --compile-only --json file's `rows` list with some MIR, in `sites`
    order: outcome `compiled`, and `unknown` with `compiled_instances` > 0 (a generic kernel
    some instance of which compiled, with no type-oblivious proof at compile time). A row
    without `compiled_instances` (a file of an older version) is taken only if `compiled`:
    how many of its instances compiled is not known."""
    def has_mir(r: dict) -> bool:
        return r.get("outcome") == "compiled" or (
            r.get("outcome") == "unknown" and r.get("compiled_instances", -1) > 0)
    keep = {(r["project"], r["file"], r["line"], r["kernel"]) for r in rows if has_mir(r)}
    return [s for s in sites if _key(s) in keep]


# ------------------------------------------------------------------ outcomes
@dataclass(frozen=True)
class Outcome:
    """The end of one kernel: its outcome (one of OUTCOMES), seconds, and the cause
    (grouped message) of an error, timeout, failure or unknown."""

    site: KernelSite
    outcome: str
    seconds: float
    cause: str = ""
    detail: str = ""
    instances: int = 0
    process_s: float = 0.0      # its share of the `verikern prove` process: wall seconds ...
    cpu_s: float = 0.0          # ... and CPU seconds (user + system; exact with --jobs 1)
    #: how many of its records (instances) compiled or ended with a verdict (-1: not
    #: recorded, a --json file of an older version); a generic kernel whose only record is
    #: its `k[...]` remainder has 0: no instance of it compiled at all
    compiled_instances: int = -1

    def __post_init__(self):
        # times held as --json writes them (milliseconds), so a summary of these outcomes
        # and one of the same outcomes read back from the JSON are the same text
        for name in ("seconds", "process_s", "cpu_s"):
            object.__setattr__(self, name, round(getattr(self, name), 3))


_PREFIX = re.compile(r"^\s*\S*?:\d+(:\d+)?: (error|warning): ")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(\.\d+)?(?!\w)")     # not the digits of a name (int64)
# `type(v[0])()`, `k[vec3, float32]`: the expression or instance named, not the cause
_NAMED = ((re.compile(r"type\([^()]*(\([^()]*\))?[^()]*\)"), "type(…)"),
          (re.compile(r"\b\w+\[[^\]]*\]"), "…[…]"))


def cause_of(message: str) -> str:
    """`message`'s first line without its file:line:col prefix, with quoted names and
    numbers blanked, so the same cause on different kernels groups together."""
    first = next((line for line in message.splitlines() if line.strip()), "")
    first = _PREFIX.sub("", first)
    first = _QUOTED.sub("'…'", first)
    for pattern, blank in _NAMED:
        first = pattern.sub(blank, first)
    first = _NUMBER.sub("N", first)
    return re.sub(r"\s+", " ", first).strip()[:160]


def _record_outcome(rec: dict) -> tuple[str, str, str]:
    """(outcome, cause, detail) of one JSON kernel record of `verikern prove`."""
    status = rec.get("status")
    if rec.get("proved_under_suggestion") and _by_premise(rec):   # not admitted by a typing premise
        return "suggested", PREMISE, ""
    if status == "error":
        text = rec.get("error") or "error"
        return "error", cause_of(text), text.splitlines()[0]
    if status in ("proved", "compiled"):
        return status, "", ""
    obligations = rec.get("obligations") or []
    if status == "failed":
        if rec.get("proved_under_suggestion"):
            return "suggested", "", ""
        bad = next((o for o in obligations if o.get("status") == "failed"), {})
        why = "suggestion not proved" if rec.get("suggested_requires") else "no suggestion"
        if rec.get("suggestion_unknown"):
            # the kernel's total ran out before the search (or the re-proof) decided:
            # no evidence that no template fits, or that the contract does not prove it
            why += ": the kernel total ran out first"
        text = f"{bad.get('kind', '?')}: {bad.get('message', '')}"
        return "failed", f"{bad.get('kind', '?')} ({why})", text
    if rec.get("proved_under_suggestion"):     # a generic kernel's `k[...]`: every instantiation under it
        return "suggested", "", ""
    bad = next((o for o in obligations if o.get("status") == "unknown"), {})
    text = bad.get("reason") or bad.get("message") or rec.get("error") or "unknown"
    return "unknown", cause_of(text), text.splitlines()[0]


#: the cause of a kernel proved under a suggested typing premise (app/premise_suggestion.py)
PREMISE = "typing premise"
#: ... under a premise that admits fewer float precisions than the kernel's instances compiled
#: at (float32 only, where float64 instances compiled too): it excludes launches the project
#: makes, so the report counts it apart and gives the rate without it
PREMISE_NARROW = "typing premise, fewer precisions than compiled"
_TYPE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VECTOR_LIKE = re.compile(r"(?:vec\d+|mat\d+|quat|transform|spatial_vector|spatial_matrix)([hfd]?)")
_SCALAR_BITS = {"float16": 16, "half": 16, "float32": 32, "float": 32, "float64": 64, "double": 64}


def _by_premise(rec: dict) -> bool:
    return any(".dtype" in r for r in rec.get("suggested_requires") or ())


def precisions(text: str) -> frozenset[int]:
    """The float widths the Warp type names in `text` have (`wp.vec3d`, `float32`, `vec3` in an
    instance name: 32); integer types have none."""
    out = set()
    for name in _TYPE_NAME.findall(text):
        if name in _SCALAR_BITS:
            out.add(_SCALAR_BITS[name])
        elif (m := _VECTOR_LIKE.fullmatch(name)) is not None:
            out.add({"h": 16, "d": 64}.get(m.group(1), 32))
    return frozenset(out)


def narrower_premise(records: list[dict]) -> bool:
    """Whether the typing premise the records carry admits fewer float precisions than the
    kernel's instances that compiled have (its name's typing, `k[float64, vec3d]`)."""
    premise = next((r for rec in records for r in rec.get("suggested_requires") or () if ".dtype" in r), None)
    if premise is None:
        return False
    compiled = frozenset().union(*(precisions(rec.get("kernel", "").partition("[")[2]) for rec in records
                                   if rec.get("status") != "error" and not _is_remainder(rec)))
    return bool(compiled - precisions(premise))


def combine(site: KernelSite, records: list[dict]) -> Outcome:
    """One kernel's outcome from its records (a generic kernel's instances `k[int8]`, ...)."""
    if not records:
        return Outcome(site, "error", 0.0, "no report for the kernel (not recognised as a kernel)")
    seconds = sum(float(r.get("seconds") or 0.0) for r in records)
    ends = [_record_outcome(r) for r in records]
    worst = min(ends, key=lambda e: (OUTCOMES.index(e[0]), e[1] != PREMISE))
    if worst[1] == PREMISE and narrower_premise(records):
        worst = (worst[0], PREMISE_NARROW, worst[2])
    reached = sum(1 for r, e in zip(records, ends) if e[0] != "error" and not _is_remainder(r))
    return Outcome(site, worst[0], seconds, worst[1], worst[2], len(records), compiled_instances=reached)


def _definition(name: str) -> str:
    """The kernel a report's name belongs to: `k` for `k[int8]`, `k{scalar_t=float64}` and
    `k{scalar_t=float64}[int8]` (a configuration's instance, frontend/configured.py)."""
    return re.split(r"[\[{]", name, maxsplit=1)[0]


def _is_remainder(rec: dict) -> bool:
    """A generic kernel's `k[...]` record (its instantiations not enumerated), a
    configuration's `k{...}` (the configurations not compiled) or an instance whose
    compile budget ran out (frontend/compile_budget.py): not one instance with MIR."""
    return str(rec.get("kernel", "")).endswith(("[...]", "{...}")) or COMPILE_BUDGET_SPENT in str(
        rec.get("error") or "")


#: The words of a kernel's error when its compile budget ran out (frontend/compile_budget.py).
COMPILE_BUDGET_SPENT = "was not compiled whole: its compile work budget"


def outcomes_from_report(task: Task, report: dict) -> list[Outcome]:
    """Each kernel of `task` from the CLI's JSON report: a file-level error (`<module>`)
    is every kernel's error; instances `name[...]` belong to `name`."""
    kernels = report.get("kernels") or []
    module_errors = [r for r in kernels if r.get("kernel") == MODULE_KERNEL]
    out = []
    for site in task.sites:
        mine = [r for r in kernels if _definition(str(r.get("kernel", ""))) == site.name]
        out.append(combine(site, mine or module_errors))
    return out


def _crash(task: Task, text: str, outcome: str = "error", seconds: float = 0.0) -> list[Outcome]:
    return [Outcome(s, outcome, seconds, cause_of(text), text.splitlines()[0] if text else "")
            for s in task.sites]


def compile_only_report(file: str, names: list[str], budget: float | None = None) -> dict:
    """The CLI's JSON report shape for `file` compiled to MIR (no proof): a record
    `compiled` or `error` per instance of the kernels `names` (`unknown` for those
    whose compile budget, verikern's default for `budget`, ran out, as `prove` would
    say), and one `<module>` error record per error of the file itself."""
    from verikern.frontend.driver import compile_file  # lazy: only the --compile-file child imports verikern
    from verikern.app.compile_budget import compile_budget
    module = compile_file(file, **compile_budget(budget))
    kernels = [{"kernel": MODULE_KERNEL, "status": "error", "error": e.render()} for e in module.errors]
    for k in module.kernels:
        if _definition(k.name) in names:
            ok = k.error is None and k.mir is not None
            if k.budget_spent:      # not compiled: its compile budget ran out first (never compiled)
                kernels.append({"kernel": k.name, "status": "unknown", "error": k.error.render()})
                continue
            if k.unknown:   # a generic kernel's instantiations not enumerated (`k[...]`): compiled when
                # its type-oblivious proof's kernel did (the proof may cover them), else unknown, why first
                kernels.append({"kernel": k.name, "status": "compiled" if k.opaque is not None else "unknown",
                                "error": "" if k.opaque is not None else
                                f"no type-oblivious proof: {k.opaque_refusal}\n{k.error.render()}"})
                continue
            kernels.append({"kernel": k.name, "status": "compiled" if ok else "error",
                            "error": k.error.render() if k.error is not None else ("" if ok else "no MIR")})
    return {"kernels": kernels}


def run_task(task: Task, budget: float | None, timeout: float | None,
             compile_only: bool = False) -> list[Outcome]:
    """`task` proved by the CLI in a child process (cwd: the project's root), or only
    compiled (`compile_only`); on a timeout of a multi-kernel task, each kernel again alone."""
    first = task.sites[0]
    names = ",".join(dict.fromkeys(s.name for s in task.sites))
    if compile_only:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--compile-file", first.file, "--kernels", names]
        if budget is not None:
            cmd += ["--budget", str(budget)]
    else:
        cmd = [sys.executable, "-m", "verikern.cli", "prove", first.file, "-k", names,
               "--format", "json", "--no-cache", "--quiet"]
    if budget is not None and not compile_only:
        cmd += ["--budget", str(budget)]
    limit = timeout * len(task.sites) if timeout else None
    start = time.perf_counter()
    cpu = _children_cpu()
    try:
        proc = subprocess.run(cmd, cwd=first.root, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        if len(task.sites) > 1:
            return [o for s in task.sites for o in run_task(Task((s,)), budget, timeout, compile_only)]
        return _timed(_crash(task, f"the harness stopped it after {timeout:g} s (wall clock)", "timeout",
                             time.perf_counter() - start), time.perf_counter() - start, _children_cpu() - cpu)
    wall, cpu = time.perf_counter() - start, _children_cpu() - cpu
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return _timed(_crash(task, f"verikern prove exited {proc.returncode} without a report: "
                                   f"{proc.stderr.strip()[-400:]}"), wall, cpu)
    return _timed(outcomes_from_report(task, report), wall, cpu)


def _children_cpu() -> float:
    """CPU seconds of this process's waited-for children so far (a killed child's
    too, once reaped): with several jobs the tasks' children overlap."""
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def _timed(outcomes: list[Outcome], wall: float, cpu: float) -> list[Outcome]:
    """`outcomes` of one task with the task's process wall and CPU seconds shared out
    evenly (a task of one kernel: its own)."""
    n = max(1, len(outcomes))
    return [replace(o, process_s=wall / n, cpu_s=cpu / n) for o in outcomes]


# ------------------------------------------------------------------ report
@dataclass(frozen=True)
class Summary:
    """Counts and times over a run's outcomes."""

    total: int
    counts: dict = field(default_factory=dict)
    causes: list = field(default_factory=list)      # (outcome, cause, count, an example kernel)
    median_s: float = 0.0
    slowest: list = field(default_factory=list)     # (seconds, "project:file:line name")
    process: tuple = (0.0, 0.0, 0.0, 0.0)            # median and largest process wall, CPU seconds
    slowest_cpu: list = field(default_factory=list)  # (CPU seconds, "project:file:line name")
    over_cpu: int = 0                                 # kernels whose process took more than CPU_TARGET_S
    #: `unknown` generic kernels none of whose instances compiled (only their `k[...]`
    #: remainder, refused): counted as compiled, but nothing of them reached MIR
    no_instance: int = 0
    premise: int = 0    # kernels proved under a suggested typing premise (among `suggested`)
    narrow: int = 0     # ... of them under one admitting fewer precisions than compiled (PREMISE_NARROW)

    @property
    def compiled(self) -> int:
        """Kernels that compiled: all but errors, and in a --compile-only run (one
        with `compiled` outcomes) all but its timeouts too, which never reached
        MIR; a proving run's timeout compiled and ran out of time proving."""
        stopped = self.counts.get("timeout", 0) if self.counts.get("compiled") else 0
        return self.total - self.counts.get("error", 0) - stopped


def label(site: KernelSite) -> str:
    return f"{site.project}:{site.file}:{site.line} {site.name}"


def summarize(outcomes: list[Outcome], top: int = 12, slowest: int = 5) -> Summary:
    """The counts, the `top` causes (most frequent first, ties by text) and the times."""
    counts = Counter(o.outcome for o in outcomes)
    grouped = Counter((o.outcome, o.cause) for o in outcomes
                      if o.outcome not in ("proved", "suggested", "compiled"))
    example = {}
    for o in outcomes:
        example.setdefault((o.outcome, o.cause), label(o.site))
    causes = [(kind, cause, n, example[(kind, cause)])
              for (kind, cause), n in sorted(grouped.items(), key=lambda kv: (-kv[1], kv[0]))][:top]
    timed = [o for o in outcomes if o.outcome != "error"]
    median = statistics.median(o.seconds for o in timed) if timed else 0.0
    worst = sorted(((o.seconds, label(o.site)) for o in timed), key=lambda t: (-t[0], t[1]))[:slowest]
    walls = [o.process_s for o in timed if o.process_s]
    cpus = [o.cpu_s for o in timed if o.cpu_s]
    process = (statistics.median(walls) if walls else 0.0, max(walls, default=0.0),
               statistics.median(cpus) if cpus else 0.0, max(cpus, default=0.0))
    worst_cpu = sorted(((o.cpu_s, label(o.site)) for o in timed if o.cpu_s),
                       key=lambda t: (-t[0], t[1]))[:slowest]
    return Summary(len(outcomes), dict(counts), causes, median, worst, process, worst_cpu,
                   sum(1 for c in cpus if c > CPU_TARGET_S),
                   sum(1 for o in outcomes if o.outcome == "unknown" and o.compiled_instances == 0),
                   sum(1 for o in outcomes if o.outcome == "suggested" and o.cause in (PREMISE, PREMISE_NARROW)),
                   sum(1 for o in outcomes if o.outcome == "suggested" and o.cause == PREMISE_NARROW))


def _pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.1f}%" if d else "-"


def render(summary: Summary, by_project: dict[str, Summary]) -> str:
    """The benchmark's report: per project and overall counts, causes and times."""
    lines = []
    compile_only = bool(summary.counts.get("compiled"))     # a --compile-only run
    for name, s in [*by_project.items(), ("all projects", summary)]:
        c = s.counts
        ok = c.get("proved", 0) + c.get("suggested", 0)
        if compile_only:
            lines.append(f"{name}: {s.total} kernels, compiled {s.compiled} ({_pct(s.compiled, s.total)}; "
                         f"{c.get('unknown', 0)} of them generic with instantiations not enumerated and no "
                         f"type-oblivious proof, {s.no_instance} of those with no instance compiled: "
                         f"{s.compiled - s.no_instance} ({_pct(s.compiled - s.no_instance, s.total)}) "
                         "with some MIR); "
                         f"error {c.get('error', 0)}" + (f", timeout {c['timeout']}" if c.get("timeout") else ""))
            continue
        lines.append(f"{name}: {s.total} kernels, compiled {s.compiled} ({_pct(s.compiled, s.total)}); "
                     f"proved {c.get('proved', 0)}, proved under the suggestion {c.get('suggested', 0)} "
                     + (f"({s.premise} under a typing premise"
                        + (f", {s.narrow} of them admitting fewer precisions than compiled" if s.narrow else "")
                        + ") " if s.premise else "") +
                     f"({_pct(ok, s.compiled)} of compiled"
                     + (f"; {_pct(ok - s.narrow, s.compiled)} without the narrower premises" if s.narrow else "")
                     + f"), failed {c.get('failed', 0)}, "
                     f"unknown {c.get('unknown', 0)}, error {c.get('error', 0)}"
                     + (f", timeout {c['timeout']}" if c.get("timeout") else ""))
    lines.append("top causes (outcome, count, cause, e.g.):")
    lines += [f"  {kind:8} {n:4}  {cause}   e.g. {ex}" for kind, cause, n, ex in summary.causes]
    lines.append(f"median per kernel: {summary.median_s:.2f} s (compiled kernels; all instances)")
    lines.append("slowest: " + "; ".join(f"{sec:.1f} s {where}" for sec, where in summary.slowest))
    if any(summary.process):
        wall_med, wall_max, cpu_med, cpu_max = summary.process
        lines.append(f"whole `verikern prove` process per kernel (compile, proof, suggestion and its "
                     f"re-proof): median {wall_med:.1f} s wall, {cpu_med:.1f} s CPU; largest "
                     f"{wall_max:.1f} s wall, {cpu_max:.1f} s CPU")
    if summary.slowest_cpu:     # CPU seconds: what the load does not change
        lines.append("slowest by CPU: " + "; ".join(f"{sec:.1f} s {where}" for sec, where in summary.slowest_cpu))
        lines.append(f"kernels over {CPU_TARGET_S:g} CPU s: {summary.over_cpu}")
    return "\n".join(lines)


def render_outcomes(outcomes: list[Outcome]) -> str:
    """`render` of `outcomes`, per project (in order of first appearance) and overall."""
    projects = list(dict.fromkeys(o.site.project for o in outcomes))
    by_project = {p: summarize([o for o in outcomes if o.site.project == p]) for p in projects}
    return render(summarize(outcomes), by_project)


def _outcome_json(o: Outcome) -> dict:
    return {"project": o.site.project, "file": o.site.file, "line": o.site.line, "kernel": o.site.name,
            "outcome": o.outcome, "seconds": round(o.seconds, 3), "instances": o.instances,
            "cause": o.cause, "detail": o.detail, "root": o.site.root,
            "process_s": round(o.process_s, 3), "cpu_s": round(o.cpu_s, 3),
            "compiled_instances": o.compiled_instances}


def _write_json(path: Path, outcomes: list[Outcome]) -> None:
    path.write_text(json.dumps([_outcome_json(o) for o in outcomes], indent=1) + "\n", encoding="utf-8")


def outcomes_from_json(rows: list[dict]) -> list[Outcome]:
    """The outcomes a --json file holds (the inverse of its writer; the cause of an
    error or unknown grouped again from its message, as this version groups)."""
    def cause(r: dict) -> str:
        return cause_of(r["detail"]) if r["outcome"] in ("error", "unknown") and r["detail"] else r["cause"]
    return [Outcome(KernelSite(r["project"], r.get("root", ""), r["file"], r["line"], r["kernel"]),
                    r["outcome"], r["seconds"], cause(r), r["detail"], r["instances"],
                    r.get("process_s", 0.0), r.get("cpu_s", 0.0), r.get("compiled_instances", -1))
            for r in rows]


def verikern_importable_elsewhere() -> str:
    """'' when this interpreter imports verikern outside the repository (the children run
    in each project's root), else what to do: a checkout that is not installed would give
    every kernel an error that only says the child exited without a report."""
    with tempfile.TemporaryDirectory() as elsewhere:
        proc = subprocess.run([sys.executable, "-c", "import verikern"], cwd=elsewhere,
                              capture_output=True, text=True)
    if proc.returncode == 0:
        return ""
    return (f"error: {sys.executable} cannot import verikern outside the repository, so no kernel "
            f"could be proved: install it first (`pip install -e .` in the checkout).\n"
            f"{proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else ''}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("projects", nargs="*", help="pkg==ver to measure too (default: the list's projects)")
    ap.add_argument("--only-named", action="store_true", help="measure only the projects named, not the list's")
    ap.add_argument("--cache", default=os.environ.get("VERIKERN_PROJECTS_CACHE", str(DEFAULT_CACHE)))
    ap.add_argument("--jobs", "-j", type=int, default=2)
    ap.add_argument("--chunk", type=int, help="kernels of one file per verikern run (default 4; with "
                                               "--compile-only a whole file, which its child compiles "
                                               "whole anyway)")
    ap.add_argument("--limit", type=int, help="only the first N kernels")
    ap.add_argument("--sample", type=int, help="N kernels spread evenly over all of them")
    ap.add_argument("--skip-sample", type=int, metavar="M",
                    help="leave out the kernels that --sample M takes (a second sample that does "
                         "not overlap the first: --sample 60 --skip-sample 30)")
    ap.add_argument("--only", help="only kernels whose project:file name contains this")
    ap.add_argument("--generic-only", action="store_true", help="only generic kernels (an annotation names Any)")
    ap.add_argument("--compiled-in", help="only kernels that an earlier --compile-only --json file "
                                          "lists as compiled (taken before --sample); leaves out "
                                          "generic kernels that compiled but had no "
                                          "type-oblivious proof (see --with-mir-in)")
    ap.add_argument("--with-mir-in", metavar="FILE",
                    help="only kernels that an earlier --compile-only --json file lists with some "
                         "MIR (taken before --sample): compiled, or unknown with compiled_instances "
                         "> 0 (generic kernels some instance of which compiled); the set the "
                         "compile rate counts")
    ap.add_argument("--budget", type=float, help="verikern's --budget (default: its default)")
    ap.add_argument("--timeout", type=float, help="harness wall-clock limit per kernel, seconds (off)")
    ap.add_argument("--json", help="write every kernel's outcome here")
    ap.add_argument("--resume", action="store_true",
                    help="keep the outcomes already in --json and prove only the other kernels")
    ap.add_argument("--report", help="only print the report of an earlier run's --json file")
    ap.add_argument("--compile-only", action="store_true", help="stop after MIR: the compile rate and its causes")
    ap.add_argument("--compile-file", help=argparse.SUPPRESS)   # the --compile-only child: one file
    ap.add_argument("--kernels", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.compile_file:
        print(json.dumps(compile_only_report(args.compile_file, args.kernels.split(","), args.budget)))
        return 0
    if args.report:
        print(render_outcomes(outcomes_from_json(json.loads(Path(args.report).read_text(encoding="utf-8")))))
        return 0

    problem = verikern_importable_elsewhere()
    if problem:
        print(problem, file=sys.stderr)
        return 3
    cache = Path(args.cache).expanduser()
    specs = list(dict.fromkeys(([] if args.only_named else read_project_list()) + args.projects))
    sites: list[KernelSite] = []
    for spec in specs:
        root = unpack(download(spec, cache / "wheels"), cache / "src")
        sites += find_kernels(spec, root)
    if args.only:
        sites = [s for s in sites if args.only in f"{s.project}:{s.file}"]
    if args.generic_only:
        import generic_refusals  # lazy: it imports this module

        sites = generic_refusals.generic_sites(sites)
    if args.compiled_in:
        sites = compiled_sites(sites, json.loads(Path(args.compiled_in).read_text(encoding="utf-8")))
    if args.with_mir_in:
        sites = with_mir_sites(sites, json.loads(Path(args.with_mir_in).read_text(encoding="utf-8")))
    sites = skip_sample(sample(sites, args.limit, args.sample), sites, args.skip_sample)
    outcomes: list[Outcome] = []
    if args.resume and args.json and Path(args.json).is_file():
        outcomes = outcomes_from_json(json.loads(Path(args.json).read_text(encoding="utf-8")))
        done_keys = {_key(o.site) for o in outcomes}
        outcomes = [o for o in outcomes if _key(o.site) in {_key(s) for s in sites}]
        todo = [s for s in sites if _key(s) not in done_keys]
    else:
        todo = sites
    chunk = args.chunk if args.chunk is not None else (len(todo) if args.compile_only else 4)
    tasks = interleave(shard(todo, max(1, chunk)))
    print(f"{len(sites)} module-level kernels outside tests in {len(specs)} projects; "
          f"{len(outcomes)} kept from {args.json}; " * bool(outcomes) +
          f"{len(tasks)} tasks, {args.jobs} jobs", file=sys.stderr, flush=True)

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_task, t, args.budget, args.timeout, args.compile_only) for t in tasks]
        for done, fut in enumerate(as_completed(futures), 1):
            got = fut.result()
            outcomes += got
            ends = ", ".join(f"{o.site.name} {o.outcome} {o.seconds:.1f}s" for o in got)
            print(f"[{done}/{len(tasks)}] {got[0].site.project} {got[0].site.file}: {ends}",
                  file=sys.stderr, flush=True)
            if args.json:    # after every task, so a stopped run keeps what it measured
                _write_json(Path(args.json), outcomes)
    order = {_key(s): i for i, s in enumerate(sites)}
    outcomes.sort(key=lambda o: order[_key(o.site)])
    print(render_outcomes(outcomes))
    print(f"wall time: {time.perf_counter() - start:.0f} s with {args.jobs} jobs")
    if args.json:
        _write_json(Path(args.json), outcomes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
