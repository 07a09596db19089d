"""Finding and running NVIDIA's PTX assembler, `ptxas`.

Invariant: `assemble` never raises for a PTX module that ptxas rejects; it
returns `AssembleResult(ok=False, log=...)` with ptxas's own words. It raises
`PtxasNotFoundError` (one sentence saying how to get ptxas) only when no ptxas
can be found at all. Resource numbers come only from ptxas's `-v` report; a
field ptxas did not report stays 0 (and `ok` says whether it ran cleanly).
"""
from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from verikern.errors import VerikernError

PTXAS_HINT = ("pip install 'verikern[cuda]' (installs nvidia-cuda-nvcc, which bundles "
              "ptxas), or install the CUDA toolkit and put its bin/ on PATH or set CUDA_HOME")

# Seconds one ptxas run may take before it is reported as hung.
PTXAS_TIMEOUT_S = 120


class PtxasNotFoundError(VerikernError):
    """No ptxas executable was found (PATH, CUDA_HOME, the nvidia-cuda-nvcc wheel)."""


@dataclass(frozen=True)
class EntryResources:
    """What ptxas -v reports for one `.entry` function (bytes, registers per thread)."""

    name: str
    registers: int = 0
    shared_bytes: int = 0
    stack_bytes: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    barriers: int = 0


@dataclass(frozen=True)
class AssembleResult:
    """The outcome of one ptxas run.

    ok: ptxas exited 0; the resource fields are those of the first `.entry`
    in the module (verikern emits one kernel per module), `entries` has every
    entry by name; `cubin` is the assembled binary when ok; `log` is ptxas's
    complete output (stdout then stderr); `arch` the GPU name assembled for.
    """

    ok: bool
    registers: int
    shared_bytes: int
    spill_stores: int
    spill_loads: int
    stack_bytes: int
    log: str
    arch: str = ""
    entries: dict = field(default_factory=dict, compare=False)
    cubin: bytes | None = field(default=None, repr=False, compare=False)


# ---------------------------------------------------------------- locating ptxas
def _candidate_paths() -> list[Path]:
    found: list[Path] = []
    on_path = shutil.which("ptxas")
    if on_path:
        found.append(Path(on_path))
    for var in ("CUDA_HOME", "CUDA_PATH"):
        root = os.environ.get(var)
        if root:
            found.append(Path(root) / "bin" / "ptxas")
    found.extend(_wheel_ptxas_paths())
    found.append(Path("/usr/local/cuda/bin/ptxas"))
    return found


def _wheel_ptxas_paths() -> list[Path]:
    """ptxas shipped by the nvidia-cuda-nvcc wheel (nvidia/cu13/bin or the
    older nvidia/cuda_nvcc/bin layout), in every site-packages folder."""
    roots: list[Path] = []
    try:
        import nvidia  # lazy: optional dependency  # namespace package of NVIDIA's wheels

        roots.extend(Path(p) for p in nvidia.__path__)
    except ImportError:
        pass
    for entry in sys.path:
        candidate = Path(entry) / "nvidia"
        if candidate.is_dir() and candidate not in roots:
            roots.append(candidate)
    paths = []
    for root in roots:
        for sub in ("cu13", "cu12", "cuda_nvcc"):
            paths.append(root / sub / "bin" / "ptxas")
    return paths


def find_ptxas() -> Path | None:
    """The first executable ptxas among: PATH, $CUDA_HOME/bin (or $CUDA_PATH),
    the pip wheel nvidia-cuda-nvcc, /usr/local/cuda/bin; None when there is none."""
    for path in _candidate_paths():
        if path.is_file() and os.access(path, os.X_OK):
            return path
    return None


def require_ptxas() -> Path:
    path = find_ptxas()
    if path is None:
        raise PtxasNotFoundError(f"ptxas (NVIDIA's PTX assembler) was not found: {PTXAS_HINT}.")
    return path


@functools.lru_cache(maxsize=8)
def _ptxas_help(path: str) -> str:
    proc = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=60)
    return proc.stdout + proc.stderr


@functools.lru_cache(maxsize=8)
def _ptxas_version_text(path: str) -> str:
    proc = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
    return proc.stdout + proc.stderr


def ptxas_version(path: Path | None = None) -> tuple[int, int] | None:
    """The CUDA release of ptxas, e.g. (13, 0); None when it cannot be read."""
    path = path or require_ptxas()
    match = re.search(r"release (\d+)\.(\d+)", _ptxas_version_text(str(path)))
    return (int(match.group(1)), int(match.group(2))) if match else None


def ptxas_archs(path: Path | None = None) -> frozenset[str]:
    """The real GPU names (sm_XY, sm_XYa, sm_XYf) this ptxas can assemble for,
    read from `ptxas --help`; empty when the list cannot be read."""
    path = path or require_ptxas()
    text = _ptxas_help(str(path))
    start = text.find("--gpu-name")
    section = text[start:] if start >= 0 else text
    allowed = section.find("Allowed values")
    if allowed < 0:
        return frozenset()
    end = section.find("Default value", allowed)
    names = re.findall(r"'(sm_\d+[af]?)'", section[allowed:end if end > 0 else None])
    return frozenset(names)


# ----------------------------------------------------------------- ptxas -v parse
_ENTRY_RE = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
_PROPS_RE = re.compile(r"Function properties for (\S+)")
_FRAME_RE = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED_RE = re.compile(r"Used (\d+) registers")
_SMEM_RE = re.compile(r"(\d+) bytes smem")
_BARRIERS_RE = re.compile(r"used (\d+) barriers")


def parse_ptxas_verbose(log: str) -> dict[str, EntryResources]:
    """Every entry function's resources from `ptxas -v` output, by name (a
    `.func` of the module, such as libdevice's `__internal_trig_reduction_slowpathd`,
    has properties too but is no entry: where the log names the entries it
    compiles, properties of any other function are skipped)."""
    entries: dict[str, dict] = {}
    current: str | None = None
    named = {m.group(1) for m in map(_ENTRY_RE.search, log.splitlines()) if m}
    for line in log.splitlines():
        m = _ENTRY_RE.search(line)
        if m:
            current = m.group(1)
            entries.setdefault(current, {"name": current})
            continue
        m = _PROPS_RE.search(line)
        if m:
            current = m.group(1) if not named or m.group(1) in named else None
            if current is not None:
                entries.setdefault(current, {"name": current})
            continue
        if current is None:
            continue
        m = _FRAME_RE.search(line)
        if m:
            entries[current].update(stack_bytes=int(m.group(1)), spill_stores=int(m.group(2)),
                                    spill_loads=int(m.group(3)))
        m = _USED_RE.search(line)
        if m:
            entries[current]["registers"] = int(m.group(1))
            s = _SMEM_RE.search(line)
            if s:
                entries[current]["shared_bytes"] = int(s.group(1))
            b = _BARRIERS_RE.search(line)
            if b:
                entries[current]["barriers"] = int(b.group(1))
    return {name: EntryResources(**fields) for name, fields in entries.items()}


def _first_entry_name(ptx: str) -> str | None:
    m = re.search(r"\.entry\s+([A-Za-z_$][\w$]*)", ptx)
    return m.group(1) if m else None


# -------------------------------------------------------------------- assemble
def assemble(ptx: str, arch: str = "sm_80", *, ptxas: Path | None = None,
             extra_args: tuple[str, ...] = ()) -> AssembleResult:
    """Assemble `ptx` for the real GPU `arch` with `ptxas -v`; see the module
    invariant. Raises PtxasNotFoundError when there is no ptxas."""
    exe = ptxas or require_ptxas()
    with tempfile.TemporaryDirectory(prefix="verikern-ptxas-") as tmp:
        src = Path(tmp) / "kernel.ptx"
        out = Path(tmp) / "kernel.cubin"
        src.write_text(ptx)
        cmd = [str(exe), "-v", "--gpu-name", arch, "-o", str(out), str(src), *extra_args]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=PTXAS_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return AssembleResult(False, 0, 0, 0, 0, 0,
                                  f"ptxas did not finish within {PTXAS_TIMEOUT_S} s: {' '.join(cmd)}", arch)
        log = (proc.stdout + proc.stderr).replace(str(src), "kernel.ptx")
        ok = proc.returncode == 0
        cubin = out.read_bytes() if ok and out.exists() else None
    if not ok:
        log = _explain_failure(log, arch, exe)
    entries = parse_ptxas_verbose(log)
    first = _first_entry_name(ptx)
    res = entries.get(first) if first else None
    if res is None and entries:
        res = next(iter(entries.values()))
    res = res or EntryResources(name=first or "")
    return AssembleResult(ok, res.registers, res.shared_bytes, res.spill_stores,
                          res.spill_loads, res.stack_bytes, log, arch, entries, cubin)


def _explain_failure(log: str, arch: str, exe: Path) -> str:
    """Append one line of advice for failures whose cause is the toolchain."""
    if "is not defined for option 'gpu-name'" in log:
        known = sorted(ptxas_archs(exe), key=_arch_sort_key)
        return log + (f"\nhint: this ptxas ({exe}) does not know {arch}; it knows "
                      f"{', '.join(known) or 'no sm_ names'}.")
    if "Unsupported .version" in log:
        return log + (f"\nhint: the PTX ISA version is newer than this ptxas ({exe}) "
                      f"supports; {PTXAS_HINT}.")
    return log


def _arch_sort_key(name: str) -> tuple[int, str]:
    m = re.match(r"sm_(\d+)(.*)", name)
    return (int(m.group(1)), m.group(2)) if m else (0, name)


def assemble_many(ptx_by_name: dict[str, str], arch: str, *, jobs: int = 2,
                  ptxas: Path | None = None) -> dict[str, AssembleResult]:
    """`assemble` every module of `ptx_by_name` for `arch`, `jobs` ptxas at a time."""
    exe = ptxas or require_ptxas()
    names = list(ptx_by_name)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = pool.map(lambda n: assemble(ptx_by_name[n], arch, ptxas=exe), names)
        return dict(zip(names, results))
