"""`verikern build`: a kernel file as an artifact a C program links -- a
shared library with a C entry point per kernel (`--target cpu`) or PTX (a
cubin where ptxas is present) with a C loader over the CUDA driver API
(`--target sm_XX`), a header, the proof report and a JSON manifest.

Invariants:
- the file is compiled by the frontend (never executed) and proved
  (verikern.app.prove) before anything is built; the manifest carries the
  MIR sha256 the proof was about and the sha256 of the written proof report;
- with `checks="unproved"` an index check is left out only when a solver
  PROVED that exact bounds obligation (same MIR, by sha256; the obligation's
  site is the access, checked by location), with no disagreeing second
  engine, and -- under fast_math -- no float value feeding the index; the
  proof assumes every launch and the default array bound, and the entry
  point refuses every launch outside them (backends/cabi/signature.py);
  every other check stays, and the manifest lists each removed one by
  obligation id.
"""
from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import llvmlite
import llvmlite.binding as llvm

from verikern.version import __version__
from verikern.app.build_proofs import ProvedKernel, prove_for_build
from verikern.backends.cabi.cpu import cpu_source
from verikern.backends.cabi.signature import CEntry, c_entry, header_text
from verikern.backends.llvm import build as lower_kernel
from verikern.backends.llvm.contract import add_contract_function
from verikern.backends.native.jit import host_target_machine, optimise
from verikern.backends.native.vectorize import vectorize_thread_loops
from verikern.errors import VerikernError
from verikern.frontend import compile_file

CHECK_MODES = ("all", "unproved")


class BuildError(VerikernError):
    """The build cannot go on: bad options, a kernel that does not compile,
    a missing or failing C compiler or ptxas."""


@dataclass(frozen=True)
class BuildOptions:
    """target: "cpu" or an NVIDIA arch "sm_XY"; checks: "all" or "unproved";
    budget: million z3 units per check (None: the prover's default);
    kernels: only these kernels (None: all); name: the library's name (None:
    the file's stem); cc: the C compiler."""

    target: str = "cpu"
    checks: str = "all"
    budget: float | None = None
    kernels: tuple[str, ...] | None = None
    name: str | None = None
    cc: str = "cc"


@dataclass
class BuildResult:
    """What was written: the output folder, the files, the manifest."""

    out_dir: Path
    files: list[Path] = field(default_factory=list)
    manifest: dict = field(default_factory=dict)


def library_name(path: Path, name: str | None) -> str:
    raw = name or path.stem
    ident = re.sub(r"[^A-Za-z0-9_]", "_", raw)
    if not ident or ident[0].isdigit():
        ident = "k_" + ident
    return ident


def _compile(path: Path, wanted: tuple[str, ...] | None):
    module = compile_file(path)
    errors = list(getattr(module, "errors", ()) or ())
    for kr in module.kernels:
        if kr.error is not None and (wanted is None or kr.name in wanted):
            errors.append(kr.error)
    if errors:
        render = getattr(errors[0], "render", None)
        raise BuildError(render() if callable(render) else str(errors[0]))
    kernels = [kr.mir for kr in module.kernels
               if kr.mir is not None and (wanted is None or kr.name in wanted)]
    if wanted is not None:
        missing = sorted(set(wanted) - {k.name for k in kernels})
        if missing:
            raise BuildError(f"{path}: no kernel named {', '.join(missing)}")
    if not kernels:
        raise BuildError(f"{path}: no kernels to build")
    return kernels


def _cc_version(cc: str) -> str:
    try:
        out = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return (out.stdout.splitlines() or ["unknown"])[0]


def run_cc(cc: str, args: list[str]) -> None:
    if shutil.which(cc) is None:
        raise BuildError(f"no C compiler {cc!r} found: install gcc (or pass --cc)")
    try:
        done = subprocess.run([cc] + args, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        raise BuildError(f"{cc} did not finish within 600 s") from None
    if done.returncode != 0:
        raise BuildError(f"{cc} failed ({' '.join([cc] + args)}):\n{done.stderr.strip()[:4000]}")


def host_object(modules, tm, path: Path, vectorize=None) -> None:
    """One object file holding every module, each optimised for `tm` (with
    the loop vectoriser where `vectorize[k]`), then linked."""
    linked = None
    for k, m in enumerate(modules):
        parsed = llvm.parse_assembly(str(m))
        parsed.verify()
        parsed.triple = tm.triple
        parsed.data_layout = str(tm.target_data)
        optimise(parsed, tm, vectorize=bool(vectorize[k]) if vectorize is not None else False)
        if linked is None:
            linked = parsed
        else:
            linked.link_in(parsed)
    assert linked is not None
    path.write_bytes(tm.emit_object(linked))


def pic_host_machine():
    host_target_machine()        # initialises the native target
    target = llvm.Target.from_triple(llvm.get_process_triple())
    return target.create_target_machine(cpu=llvm.get_host_cpu_name(),
                                        features=llvm.get_host_cpu_features().flatten(),
                                        opt=3, reloc="pic", codemodel="default")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def build(path, out_dir, options: BuildOptions | None = None) -> BuildResult:
    """Build the kernels of `path` into `out_dir` (module doc)."""
    opts = options or BuildOptions()
    if opts.checks not in CHECK_MODES:
        raise BuildError(f"bad --checks {opts.checks!r}: choose all or unproved")
    src = Path(path)
    if not src.is_file():
        raise BuildError(f"{path}: no such file")
    if opts.target != "cpu" and not re.fullmatch(r"sm_\d{2,3}a?", opts.target):
        raise BuildError(f"bad --target {opts.target!r}: give cpu or an NVIDIA arch such as sm_80")
    kernels = _compile(src, opts.kernels)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    lib = library_name(src, opts.name)
    proved = prove_for_build(src, kernels, opts.budget, opts.checks == "unproved")
    result = BuildResult(out)
    report_bytes = json.dumps([p.report_json for p in proved], indent=2, sort_keys=True).encode()
    report_path = out / f"{lib}.proof.json"
    report_path.write_bytes(report_bytes)
    result.files.append(report_path)
    texts = {key: text for p in proved for key, text in p.contract_texts.items()}
    toolchain = {"verikern": __version__, "llvmlite": llvmlite.__version__,
                 "llvm": ".".join(map(str, llvm.llvm_version_info)),
                 "cc": _cc_version(opts.cc)}
    if opts.target == "cpu":
        entries = _build_cpu(src, out, lib, proved, texts, opts, result)
        toolchain["host_cpu"] = llvm.get_host_cpu_name()
    else:
        from verikern.app.build_cuda import build_cuda  # lazy: the GPU path only

        entries = build_cuda(src, out, lib, proved, texts, opts, result, toolchain)
    result.manifest = _manifest(src, lib, opts, proved, entries, toolchain, report_bytes, result)
    manifest_path = out / f"{lib}.manifest.json"
    manifest_path.write_text(json.dumps(result.manifest, indent=2, sort_keys=False) + "\n")
    result.files.append(manifest_path)
    return result


def _build_cpu(src: Path, out: Path, lib: str, proved: list[ProvedKernel],
               texts: dict, opts: BuildOptions, result: BuildResult) -> list[CEntry]:
    tm = pic_host_machine()
    items = []
    modules = []
    features = llvm.get_host_cpu_features()
    vectorize = [vectorize_thread_loops(p.kernel, features) for p in proved]
    for p in proved:
        lowered = lower_kernel(p.kernel, "cpu", None, triple=tm.triple, unchecked=p.unchecked)
        add_contract_function(p.kernel, lowered.module, bool(p.kernel.fast_math))
        modules.append(lowered.module)
        items.append((c_entry(p.kernel), lowered))
    entries = [e for e, _ in items]
    header = out / f"{lib}.h"
    header.write_text(header_text(f"VK_{lib.upper()}_H", entries,
                                  {p.kernel.name: list(p.header_comment) for p in proved}))
    wrapper = out / f"{lib}.c"
    wrapper.write_text(cpu_source(header.name, str(src), items, proved[0].max_array_bytes, texts))
    so = out / f"lib{lib}.so"
    with tempfile.TemporaryDirectory() as tmp:
        obj = Path(tmp) / f"{lib}_kernels.o"
        host_object(modules, tm, obj, vectorize)
        run_cc(opts.cc, ["-std=gnu11", "-O2", "-fPIC", "-shared", "-o", str(so), str(wrapper),
                          str(obj), "-lm"])
    result.files += [header, wrapper, so]
    return entries


def _manifest(src: Path, lib: str, opts: BuildOptions, proved: list[ProvedKernel],
              entries: list[CEntry], toolchain: dict, report_bytes: bytes,
              result: BuildResult) -> dict:
    kernels = []
    for p, e in zip(proved, entries):
        kernels.append({
            "name": p.kernel.name,
            "entry": e.name,
            "prototype": e.prototype,
            "signature": list(p.signature),
            "launch": {"ndim": p.kernel.launch_ndim, "block_dim": p.kernel.block_dim,
                       "block_features": bool(p.kernel.uses_block_features)},
            "contract": list(p.contract),
            "mir_sha256": p.mir_sha256,
            "proof": {"status": p.status, "budget": p.budget,
                      "obligations": list(p.verdicts)},
            "checks": {"mode": opts.checks, "removed": list(p.removed),
                       "kept_bounds_checks": p.kept},
        })
    files = {f.name: _sha256(f.read_bytes()) for f in result.files if f.is_file()}
    return {
        "format": "verikern-build/1",
        "library": lib,
        "target": opts.target,
        "source": {"path": str(src), "sha256": _sha256(src.read_bytes())},
        "checks": opts.checks,
        "max_array_bytes": proved[0].max_array_bytes,
        "proof_report": {"file": f"{lib}.proof.json", "sha256": _sha256(report_bytes)},
        "toolchain": toolchain,
        "kernels": kernels,
        "files": files,
    }
