"""CBMC as a second engine: `verikern prove --engine cbmc` (or `z3,cbmc`).

The kernel's C encoding (verikern.encoders.c: one `__CPROVER_assert` per
obligation, message `<obligation id> <kind> <file>:<line>:<col>`) is given to
`cbmc` from PATH with `--unwind N --unwinding-assertions --json-ui --trace`,
and CBMC's properties are mapped back onto the prover's obligations by id.

Invariants (soundness first):
- an obligation is PROVED only when CBMC reports SUCCESS (or UNREACHABLE) for
  every assert carrying its id, CBMC reports no failed or undecided
  unwinding assertion and no failed check of the harness itself, and CBMC
  exited normally with an overall status; anything else is UNKNOWN with the
  reason ("bounded to N iterations" when only the unwinding assertions fail);
- a FAILURE becomes a FAILED obligation whose counterexample (launch, block
  size, threads, scalars and shapes read off CBMC's trace; array contents
  left to replay) is marked `abstracted`: the C harness reads memory the
  kernel writes as unknown values, so only a replay on the simulator makes it
  a confirmed failure (verikern.proofs.pipeline.settle downgrades the rest to
  UNKNOWN) -- unless no branch, index, assert or divisor of the kernel reads
  memory or a float (cbmc_answer.exact_traces): then the trace's launch
  fixes every check, the counterexample is exact, and a failure replay
  cannot confirm (the simulator stopped at another error first) stays
  FAILED, unconfirmed, as an exact one of z3's does;
- when one call over every property runs out of units, the undecided
  obligations are asked again in groups (cbmc_split), each under the same
  units, and a proof from a group call also needs CBMC's own checks of the
  harness shown to hold;
- CBMC's work is bounded by counted work only, never by seconds: the
  unwinding depth bounds the formula, and CBMC's decision procedure is z3
  (CBMC's `--cvc5` with a wrapper named cvc5 that runs z3 and gives every
  solver call the resource limit `rlimit=` of `sat_rlimit`, in z3's own
  units: solver_wrapper), so the same kernel and
  options get the same verdict on any machine at any load. A call that runs
  out of units is UNKNOWN ("out of CBMC's work budget"). The wall clock only
  bounds a run as a safety net (`SAFETY_NET_S`); a run that hits it is
  UNKNOWN, says so, and is never cached (app.cache.cacheable).
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any, Callable, Sequence

from verikern.encoders.c import CEncodeError, encode_c
from verikern.encoders.smt.launch import LaunchModel
from verikern.errors import VerikernError
from verikern.mir.nodes import Kernel
from verikern.proofs.deciding import budget as budget_limits
from verikern.proofs.deciding.cbmc_answer import (  # noqa: F401 (re-exported: the answer's reader)
    CbmcResult, PropertyResult, counterexample_from_trace, decide, parse_json_ui,
)
from verikern.proofs.deciding.cbmc_invariants import (
    abstractable, houdini_invariants, loop_abstractions,
)
from verikern.proofs.deciding.cbmc_split import decide_split, ran_out_of_units
from verikern.proofs.deciding.cbmc_unwind import DEFAULT_UNWIND, UnwindPlan, unwind_plan  # noqa: F401 (DEFAULT_UNWIND: re-exported)
from verikern.proofs.obligations import (
    Obligation, ObligationSpec, Status, enumerate_obligations, obligation_id,
)

#: How users get CBMC (it is not on the package registries verikern installs from).
INSTALL_HINT = ("install CBMC from your distribution (`apt-get install cbmc` on Ubuntu, "
                "`brew install cbmc` on macOS) or from https://github.com/diffblue/cbmc/releases, "
                "or point VERIKERN_CBMC at the binary")


class CbmcMissing(VerikernError):
    """`cbmc` is not installed (the message says how to install it)."""


def find_cbmc() -> str:
    """The cbmc executable: $VERIKERN_CBMC, else `cbmc` on PATH; raises CbmcMissing."""
    given = os.environ.get("VERIKERN_CBMC")
    if given:
        if shutil.which(given) is None:
            raise CbmcMissing(f"VERIKERN_CBMC={given!r} is not an executable; {INSTALL_HINT}")
        return given
    found = shutil.which("cbmc")
    if found is None:
        raise CbmcMissing(f"--engine cbmc needs the `cbmc` model checker, which is not on PATH: "
                          f"{INSTALL_HINT}")
    return found


def find_z3() -> str:
    """The z3 executable CBMC solves with: the one z3-solver (a dependency of
    verikern) installed beside this Python, else `z3` on PATH; raises
    CbmcMissing when there is none."""
    for folder in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable),
                   sysconfig.get_path("scripts", vars={"base": sys.base_prefix})):
        exe = os.path.join(folder, "z3")
        if os.path.isfile(exe) and os.access(exe, os.X_OK):
            return exe
    found = shutil.which("z3")
    if found is None:
        raise CbmcMissing("--engine cbmc solves with z3's executable `z3`, which z3-solver "
                          "installs; none was found beside this Python or on PATH "
                          "(reinstall z3-solver)")
    return found


def cbmc_identity() -> dict:
    """What names the CBMC that `--engine cbmc` would run here (a proof-cache
    key field): its resolved path, the sha256 of its bytes and the first line
    of `cbmc --version` ("unknown" when that run fails), and the same three
    for the z3 it solves with (`solver`); {"missing": why} when there is none
    (the proof is then an input error, never cached)."""
    try:
        exe = shutil.which(find_cbmc()) or ""
        solver = find_z3()
    except CbmcMissing as err:
        return {"missing": str(err)}
    ident = _identity(exe)
    if "missing" in ident:
        return ident
    return {**ident, "solver": _identity(solver)}


def _identity(exe: str) -> dict:
    """path, sha256 and version of one executable ({"missing": why} when unreadable)."""
    path = os.path.realpath(exe)
    try:
        stat = os.stat(path)
    except OSError as err:
        return {"missing": f"{path}: {err.strerror or err}"}
    return _identity_of(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=8)
def _identity_of(path: str, mtime_ns: int, size: int) -> dict:
    """cbmc_identity's fields for the binary at `path` (remembered per path,
    modification time and size: a replaced binary is hashed again)."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    except OSError as err:
        return {"missing": f"{path}: {err.strerror or err}"}
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60,
                              check=False)
        lines = done.stdout.strip().splitlines() if done.returncode == 0 else []
        version = lines[0] if lines else "unknown"
    except (OSError, subprocess.TimeoutExpired):
        version = "unknown"
    return {"path": path, "sha256": digest.hexdigest(), "version": version}


_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")


@functools.lru_cache(maxsize=8)
def _version_of(exe: str) -> str | None:
    try:
        done = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = _VERSION.search(done.stdout or "")
    return m.group(0) if done.returncode == 0 and m else None


def cbmc_version() -> str | None:
    """The version of the cbmc `find_cbmc` picks ("6.6.0", "5.95.1"), or None
    when there is none or it does not answer `--version`. Part of the proof
    cache's key for CBMC verdicts: another CBMC may decide differently."""
    try:
        exe = find_cbmc()
    except CbmcMissing:
        return None
    return _version_of(shutil.which(exe) or exe)


def version_tuple(version: str | None) -> tuple[int, ...]:
    """"6.6.0" -> (6, 6, 0); () when unknown."""
    m = _VERSION.match(version or "")
    return tuple(int(g) for g in m.groups() if g is not None) if m else ()



Runner = Callable[[list[str]], "subprocess.CompletedProcess[str]"]


#: CPU seconds of the processes the safety net killed that this process never
#: waited for (cbmc's solver, orphaned when cbmc dies), so that
#: resource.getrusage(RUSAGE_CHILDREN) leaves them out: `killed_cpu_seconds`.
_KILLED_CPU = [0.0]


def killed_cpu_seconds() -> float:
    """CPU seconds, so far in this process, of cbmc's children the safety net
    killed (Linux's /proc; 0 elsewhere). RUSAGE_CHILDREN counts cbmc itself
    (reaped here) but not them; a benchmark adds this to it."""
    return _KILLED_CPU[0]


def _orphans_cpu(group: int, reaped: int) -> float:
    """utime + stime of the processes of process group `group` but `reaped`."""
    total, tick = 0.0, os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue            # gone meanwhile, or not Linux's format
        if len(fields) > 12 and int(fields[2]) == group and int(entry.name) != reaped:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _run(argv: list[str], env: dict[str, str] | None = None) -> "subprocess.CompletedProcess[str]":
    """Run cbmc in a process group of its own: past the safety net the whole
    group is killed, the z3 that cbmc started included (killing cbmc alone
    left its solver running on), and TimeoutExpired is raised."""
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=env, start_new_session=True) as proc:
        try:
            out, err = proc.communicate(timeout=budget_limits.SAFETY_NET_S)
        except subprocess.TimeoutExpired:
            _KILLED_CPU[0] += _orphans_cpu(proc.pid, proc.pid)
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass        # the group ended on its own meanwhile
            proc.communicate()
            raise
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


#: CBMC's solver may spend this many of z3's per-check budgets (`--budget`,
#: budget.DEFAULT_CHECK_RLIMIT by default) on one call: a CBMC formula holds
#: every obligation of the kernel unrolled for two threads, where z3's check
#: holds one. 10 x 10 million units: about 20 s of z3 on the idle 2-core
#: development machine (saxpy for every launch takes 27 million), so the
#: 300 s safety net stays far above a full call even at a load of 6 per core.
CALL_CHECKS = 10


def sat_rlimit(budget: Any = None) -> int:
    """z3 resource units of one CBMC solver call: CALL_CHECKS times the
    per-check budget (a session.SolverSession, N million units as a number,
    or None for the default)."""
    if budget is None:
        per_check = budget_limits.DEFAULT_CHECK_RLIMIT
    elif isinstance(budget, (int, float)):
        per_check = max(1, int(budget * budget_limits.MEGA))
    else:
        per_check = int(budget.per_check)
    return CALL_CHECKS * per_check


#: The SMT-LIB dialect CBMC writes for z3 (module docstring of solver_wrapper),
#: by CBMC's major version: 6 writes cvc5's, older ones only know cvc4's.
_DIALECT = {True: "--cvc5", False: "--cvc4"}


def solver_wrapper(folder: Path, z3_exe: str, rlimit: int) -> tuple[Path, ...]:
    """Write `folder/cvc5` and `folder/cvc4`: shell scripts that run
    `z3_exe rlimit=<rlimit> -smt2 FILE` on the SMT-LIB file CBMC passes last.

    CBMC's `--cvc5` (`--cvc4`) writes its formula in that solver's dialect
    (`set-logic ALL`, floats in the FP theory, `get-value` for the trace) and
    runs the `cvc5` it finds on PATH; the runs put `folder` first on PATH
    (`solver_env`), so z3 decides every call, bounded by the same count of its
    resource units. (`--z3`'s own dialect adds datatypes for structs, which
    send z3 to its slow general core: 50 s where this takes 3.)"""
    body = f'#!/bin/sh\nfor a; do f=$a; done\nexec {shlex.quote(z3_exe)} rlimit={int(rlimit)} -smt2 "$f"\n'
    out = []
    for name in ("cvc5", "cvc4"):
        path = folder / name
        path.write_text(body)
        path.chmod(0o755)
        out.append(path)
    return tuple(out)


def solver_env(folder: Path) -> dict[str, str]:
    """This process's environment with `folder` (solver_wrapper's) first on PATH."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(folder), env.get("PATH", "")])
    return env


#: The bound (-DVK_SMALL) on every launch dim and shape of the second CBMC run
#: that looks for a counterexample small enough to replay (`_replayable`).
SMALL_INPUT = 1024
#: CBMC 5 turns on no check by itself; these are the ones CBMC 6 runs by default.
_CBMC5_CHECKS = ("--bounds-check", "--pointer-check", "--div-by-zero-check",
                 "--signed-overflow-check", "--undefined-shift-check", "--pointer-overflow-check")


def cbmc_argv(exe: str, path: Path, unwind: int | UnwindPlan, version: str | None,
              small: int | None = None, max_array_bytes: int | None = None,
              properties: Sequence[str] = ()) -> list[str]:
    """The cbmc command line: unwinding assertions at `unwind` (one depth,
    or cbmc_unwind's plan: `--unwind N --unwindset id:N,...`), z3 as the
    decision procedure (the `cvc5` on PATH: solver_wrapper), JSON with
    traces; CBMC 5 also gets CBMC 6's standard checks (`_CBMC5_CHECKS`);
    `small`: only launches with dims and shapes at most `small`;
    `properties`: only these CBMC properties (`--property`; CBMC still
    checks every unwinding assertion), all when empty."""
    old = version is not None and version_tuple(version)[:1] < (6,)
    depth = unwind.argv() if isinstance(unwind, UnwindPlan) else ["--unwind", str(unwind)]
    argv = [exe, str(path), *depth, "--unwinding-assertions",
            _DIALECT[not old], "--json-ui", "--trace"]
    if old:
        argv += list(_CBMC5_CHECKS)
    if small is not None:
        argv += ["-D", f"VK_SMALL={small}"]
    if max_array_bytes is not None:
        argv += ["-D", f"VK_MAX_ARRAY_BYTES={int(max_array_bytes)}ull"]
    for name in properties:
        argv += ["--property", name]
    return argv


#: With a fixed launch, a run whose unwinding assertions fail is run again once
#: with DEEPER times the depth of every loop whose bound is not read off the
#: kernel (cbmc_unwind.UnwindPlan.deeper).
DEEPER = 4


def _only_unwinding_blocks(obligations: Sequence[Obligation]) -> bool:
    """Some obligation is unknown only because the unwinding assertions failed."""
    return any(o.status is Status.UNKNOWN and (o.reason or "").startswith("bounded to ")
               for o in obligations)


def _replayable(ob: Obligation) -> bool:
    cex = ob.counterexample
    if cex is None:
        return True
    size = 1
    for d in cex.dims:
        size *= max(d, 1)
    return size <= SMALL_INPUT and all(0 <= n <= SMALL_INPUT for shape in cex.shapes.values()
                                       for n in shape)


def prove_kernel_cbmc(kernel: Kernel, *, dims=None, block_dim=None, budget=None,
                      max_array_bytes: int | None = None, unwind: int | None = None,
                      runner: Runner | None = None,
                      invariants: dict[str, list] | None = None) -> tuple[Obligation, ...]:
    """Decide every obligation of `kernel` with CBMC (same shape as
    proofs.deciding.prover.prove_kernel; `budget` is z3's per-check budget,
    of which each of CBMC's solver calls gets CALL_CHECKS (`sat_rlimit`);
    the harness assumes every array holds at most `max_array_bytes` bytes,
    2**40 when None, as the z3 prover does). Raises CbmcMissing when cbmc is
    not installed.

    When a failure's launch is too large to replay (dims or shapes above
    SMALL_INPUT), CBMC runs a second time on launches with every dim and
    shape at most SMALL_INPUT; a failure it finds there (a real trace of a
    launch the first run covered too) replaces the large one. Proofs only
    ever come from the first run.

    When obligations stay unknown behind loops the kernel does not bound
    (their unwinding assertions fail, or the run hit the safety net), CBMC
    runs once more on C that checks those loops through their invariants
    (encoders.c.loops, `_through_invariants`): `invariants` (header -> z3
    Houdini candidates; None: Houdini runs here, proofs.deciding.cbmc_invariants).
    Only obligations the unwound run left unknown take that run's verdict."""
    specs = enumerate_obligations(kernel)
    if not specs:
        return ()
    if dims or block_dim is not None:
        try:        # the z3 prover's rules for a fixed launch (hardware limits, whole blocks)
            LaunchModel(kernel, tuple(dims) if dims else None, block_dim)
        except ValueError as err:
            # the harness would assume the launch and so prove every check vacuously
            return _all_unknown(specs, f"bad launch: {err}")
    exe = find_cbmc()
    version = cbmc_version() if runner is None else None
    rlimit = sat_rlimit(budget)
    try:
        encoding = encode_c(kernel, dims=tuple(dims) if dims else None, block_dim=block_dim)
    except CEncodeError as err:
        return _all_unknown(specs, f"the C encoder refused the kernel: {err}")
    plan = unwind_plan(kernel, encoding.loops, dims, block_dim, unwind)
    with tempfile.TemporaryDirectory(prefix="verikern-cbmc-") as tmp:
        run: Runner
        if runner is None:
            solver_wrapper(Path(tmp), find_z3(), rlimit)
            run = functools.partial(_run, env=solver_env(Path(tmp)))
        else:
            run = runner
        attempt = _Attempt(kernel, tuple(specs), Path(tmp), exe, version, max_array_bytes,
                           rlimit, run)
        unbounded = [h for (i, _, d), (_, h) in zip(plan.depths, plan.headers) if not d]
        headers = frozenset(h for h in unbounded if h is not None)
        # the deeper run only where some loop cannot be checked through an
        # invariant (the abstraction below covers the others for any trip count)
        deeper = (unwind is None and bool(dims)
                  and not (None not in unbounded and abstractable(kernel, headers) == headers))
        first = attempt.decide(encoding.text, plan, deeper=deeper)
        loops = _unbounded_loops(kernel, plan, first)
        if not loops:
            return first
        if invariants is None:
            invariants = houdini_invariants(kernel, dims, block_dim, budget, max_array_bytes)
        return _through_invariants(attempt, first, loops, invariants, dims, block_dim, unwind)


def _unbounded_loops(kernel: Kernel, plan: UnwindPlan,
                     obligations: Sequence[Obligation]) -> frozenset[str]:
    """The MIR loops CBMC may check through invariants after `obligations`:
    those whose depth the plan did not read off the kernel and that
    encoders.c.loops can abstract, when some obligation is unknown because
    the unwinding assertions failed or the safety net stopped CBMC."""
    if not any(o.status is Status.UNKNOWN and ((o.reason or "").startswith("bounded to ")
                                               or "safety net" in (o.reason or ""))
               for o in obligations):
        return frozenset()
    derived = {i for i, _, d in plan.depths if d}
    return abstractable(kernel, frozenset(h for i, h in plan.headers
                                          if h is not None and i not in derived))


def _through_invariants(attempt: "_Attempt", first: tuple[Obligation, ...], loops: frozenset[str],
                        invariants: dict[str, list], dims, block_dim,
                        unwind: int | None) -> tuple[Obligation, ...]:
    """`first` with each obligation it left unknown decided again on C that
    checks `loops` through their invariants (encoders.c.loops): CBMC checks
    each invariant's base case and step itself, and a failed one leaves every
    obligation unknown (cbmc_answer.decide)."""
    kernel = attempt.kernel
    abstractions = loop_abstractions(kernel, loops, invariants)
    encoding = encode_c(kernel, dims=tuple(dims) if dims else None, block_dim=block_dim,
                        abstractions=abstractions)
    plan = unwind_plan(kernel, encoding.loops, dims, block_dim, unwind, loops)
    lines = sorted({lp.loc.line for lp in kernel.loops if lp.header in loops})
    note = (f"the loop{'s' if len(lines) > 1 else ''} at line{'s' if len(lines) > 1 else ''} "
            f"{', '.join(map(str, lines))} checked through "
            f"{'their' if len(lines) > 1 else 'its'} invariant{'s' if len(lines) > 1 else ''}, "
            f"which CBMC verified (encoders.c.loops)")
    second = attempt.decide(encoding.text, plan, deeper=False, abstraction=note)
    out = []
    for a, b in zip(first, second):
        if a.status is not Status.UNKNOWN:
            out.append(a)
        elif b.status is not Status.UNKNOWN:
            out.append(b)
        else:           # both reasons: the unwound run's, then the abstraction's
            out.append(dataclasses.replace(
                a, reason=f"{a.reason}; with the loops checked through invariants: {b.reason}"))
    return tuple(out)


@dataclasses.dataclass(frozen=True)
class _Attempt:
    """What every CBMC run of one kernel shares: its obligations, the
    folder of its C files, the cbmc to run and how."""

    kernel: Kernel
    specs: tuple[ObligationSpec, ...]
    folder: Path
    exe: str
    version: str | None
    max_array_bytes: int | None
    rlimit: int
    run: Runner

    def decide(self, text: str, plan: UnwindPlan, deeper: bool,
               abstraction: str | None = None) -> tuple[Obligation, ...]:
        """The verdicts of one C file: one run over every property; with
        `deeper`, a second run at DEEPER times the depths the kernel does
        not bound when only the unwinding assertions blocked; the split when
        the solver ran out of units; a run on small launches for failures
        too large to replay."""
        kernel, specs, rlimit, run = self.kernel, self.specs, self.rlimit, self.run
        path = self.folder / (f"{kernel.name}.c" if abstraction is None
                              else f"{kernel.name}.invariants.c")
        path.write_text(text)

        def argv(depths: UnwindPlan, small: int | None = None,
                 properties: Sequence[str] = ()) -> list[str]:
            return cbmc_argv(self.exe, path, depths, self.version, small, self.max_array_bytes,
                             properties)
        answer = _ask(argv(plan), plan, run)
        if isinstance(answer, str):
            return _all_unknown(specs, answer)
        first = decide(kernel, specs, answer, plan, rlimit, abstraction)
        if deeper and not plan.derived and _only_unwinding_blocks(first):
            # a fixed launch bounds many loops the kernel's text does not
            # (per-thread counts of a shape): one deeper run, still a bound on work
            again = _ask(argv(plan.deeper(DEEPER)), plan.deeper(DEEPER), run)
            if not isinstance(again, str):
                answer, plan = again, plan.deeper(DEEPER)
                first = decide(kernel, specs, answer, plan, rlimit, abstraction)
        if ran_out_of_units(answer):
            # one hard obligation left the easy ones undecided: ask again in
            # groups, each under the same units (cbmc_split)
            depths = plan
            first = decide_split(kernel, specs, first, answer,
                                 lambda names: _ask(argv(depths, properties=names), depths, run),
                                 plan, rlimit, abstraction)
        if all(_replayable(o) for o in first if o.status is Status.FAILED):
            return first
        small = _ask(argv(plan, SMALL_INPUT), plan, run)
        if isinstance(small, str):
            return first
        found = {obligation_id(o.spec): o
                 for o in decide(kernel, specs, small, plan, rlimit, abstraction)
                 if o.status is Status.FAILED and o.spec is not None}
        return tuple(found.get(obligation_id(o.spec), o)
                     if o.status is Status.FAILED and o.spec is not None else o for o in first)


def _ask(argv: list[str], plan: UnwindPlan, runner: Runner) -> CbmcResult | str:
    """One CBMC run's answer, or why it gave none."""
    try:
        done = runner(argv)
    except subprocess.TimeoutExpired:
        return (f"the wall-clock safety net of {budget_limits.SAFETY_NET_S:g} s was reached by "
                f"CBMC ({plan.describe()}): this verdict depends on the machine's speed and load; "
                f"lower --unwind, fix --dim or lower --budget")
    try:
        return parse_json_ui(done.stdout)
    except ValueError:
        first = (done.stderr or done.stdout or "").strip().splitlines()[:1]
        return (f"CBMC exited {done.returncode} without a JSON answer"
                + (f": {first[0]}" if first else ""))


def _all_unknown(specs: Sequence[ObligationSpec], reason: str) -> tuple[Obligation, ...]:
    return tuple(Obligation(kind=s.kind, loc=s.loc, status=Status.UNKNOWN,
                            message=f"CBMC: {obligation_id(s)} undecided", reason=reason,
                            other_loc=s.other_loc, spec=s) for s in specs)
