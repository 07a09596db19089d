"""MIR kernel -> NVPTX LLVM IR (verikern.backends.llvm) -> PTX text (llvmlite).

Invariant: the PTX returned by `compile_ptx` holds exactly one `.entry`, the
kernel's name, with the parameter ABI documented in verikern.backends.llvm,
a `.target` equal to the validated `arch`, and the `.version` LLVM chose for
that arch (LLVM emits the minimum PTX ISA the target needs: 6.3 for sm_75,
7.0 for sm_80, 7.8 for sm_90, 8.6 for sm_100, all accepted by CUDA 13's
ptxas; the `.version` line is never rewritten, because a PTX ISA older than
the target requires would be rejected or mistranslated). A caller that needs
a specific newer ISA passes `ptx_isa="ptx80"`, which becomes the target
machine feature "+ptx80".
"""
from __future__ import annotations

import re
import threading
from dataclasses import replace

from verikern.errors import VerikernError

from .arch import NVPTX_TRIPLE, check_arch, nvptx_target
from .libdevice import link_libdevice

DEFAULT_ARCH = "sm_80"
_CACHE_LIMIT = 1024
_cache: dict = {}
_cache_lock = threading.Lock()


class PtxCompileError(VerikernError):
    """LLVM rejected the IR of a kernel (a bug in the lowering, reported with its IR line)."""


def _target_machine(arch: str, ptx_isa: str | None, opt_level: int):
    features = ""
    if ptx_isa:
        if not re.fullmatch(r"ptx\d{2,3}", ptx_isa):
            raise VerikernError(f"ptx_isa must look like 'ptx78' (PTX ISA 7.8), not {ptx_isa!r}")
        features = "+" + ptx_isa
    return nvptx_target().create_target_machine(cpu=arch, features=features, opt=opt_level)


def compile_llvm_ir(ir: str, arch: str = DEFAULT_ARCH, *, opt_level: int = 3,
                    ptx_isa: str | None = None, name: str = "kernel") -> str:
    """PTX assembly for NVPTX LLVM IR text `ir`: libdevice linked in when
    `__nv_*` math is called, then LLVM's standard pipeline at `opt_level`
    (which also resolves libdevice's __nvvm_reflect queries), then the
    NVPTX code generator. `name` only labels errors."""
    return emit_ptx(parse_nvptx_ir(ir, name), arch, opt_level=opt_level, ptx_isa=ptx_isa)


def parse_nvptx_ir(ir: str, name: str = "kernel"):
    """The verified llvmlite binding module of IR text `ir` (PtxCompileError if invalid)."""
    import llvmlite.binding as llvm  # lazy: llvmlite, only to compile

    try:
        module = llvm.parse_assembly(ir)
        module.verify()
    except RuntimeError as exc:
        raise PtxCompileError(f"LLVM rejected the NVPTX IR of {name}: {exc}".strip()) from None
    return module


def emit_ptx(module, arch: str = DEFAULT_ARCH, *, opt_level: int = 3,
             ptx_isa: str | None = None) -> str:
    """PTX for a parsed NVPTX binding module (consumed: it is linked and optimised in place)."""
    import llvmlite.binding as llvm  # lazy: llvmlite, only to compile

    arch = check_arch(arch)
    tm = _target_machine(arch, ptx_isa, opt_level)
    if not module.triple:
        module.triple = NVPTX_TRIPLE
    if not module.data_layout:
        module.data_layout = str(tm.target_data)
    defined = {fn.name for fn in module.functions if not fn.is_declaration}
    link_libdevice(module, defined)
    if opt_level > 0:
        tuning = llvm.create_pipeline_tuning_options(speed_level=min(opt_level, 3))
        builder = llvm.create_pass_builder(tm, tuning)
        builder.getModulePassManager().run(module, builder)
    return tm.emit_assembly(module)


def _cached(key, kernel, make):
    """`make()` memoised under `key` while `kernel` (whose id is in the key) lives in the cache."""
    with _cache_lock:
        hit = _cache.get(key)
    if hit is not None and hit[0] is kernel:
        return hit[1]
    value = make()
    with _cache_lock:
        if len(_cache) >= _CACHE_LIMIT:
            _cache.clear()
        _cache[key] = (kernel, value)  # holding `kernel` keeps its id unique while cached
    return value


def _lower(kernel, fast_math: bool) -> str:
    try:
        from verikern.backends import llvm as llvm_backend  # lazy: llvmlite, only to compile
    except ImportError as exc:
        raise VerikernError(f"the LLVM lowering (verikern.backends.llvm) is not available: {exc}") from None
    try:
        return llvm_backend.lower(kernel, target="nvptx", fast_math=fast_math)
    except VerikernError:
        raise
    except Exception as exc:  # report where, never a bare traceback
        raise PtxCompileError(f"{kernel.loc}: kernel {kernel.name} cannot be lowered for "
                              f"NVPTX: {exc}") from exc


def nvptx_ir(kernel, fast_math: bool | None = None) -> str:
    """The NVPTX LLVM IR of a MIR kernel from verikern.backends.llvm (memoised)."""
    fm = bool(kernel.fast_math) if fast_math is None else bool(fast_math)
    return _cached(("ir", id(kernel), fm), kernel, lambda: _lower(kernel, fm))


def compile_ptx(kernel, arch: str = DEFAULT_ARCH, fast_math: bool | None = None, *,
                opt_level: int = 3, ptx_isa: str | None = None) -> str:
    """PTX text for a MIR kernel (see the module invariant). `fast_math=None`
    takes the kernel's module option; True gives approximate div/sqrt
    (`div.approx`, `sqrt.approx`), False IEEE-rounded (`div.rn`, `sqrt.rn`)."""
    arch = check_arch(arch)
    fm = bool(kernel.fast_math) if fast_math is None else bool(fast_math)
    return _cached(("ptx", id(kernel), arch, fm, opt_level, ptx_isa), kernel,
                   lambda: compile_llvm_ir(nvptx_ir(kernel, fm), arch, opt_level=opt_level,
                                           ptx_isa=ptx_isa, name=kernel.name))


def compile_ptx_bundle(kernels, arch: str = DEFAULT_ARCH, fast_math: bool | None = None, *,
                       opt_level: int = 3) -> tuple[str, list[str]]:
    """ONE PTX module holding every kernel of `kernels` (so one ptxas run
    covers them all), and the `.entry` name of each, in order. Each kernel
    is lowered exactly as `compile_ptx` lowers it, under the unique name
    `k<index>_<name>` (so kernels of equal names, and their shared arrays,
    cannot clash); libdevice is linked once for the whole bundle."""

    arch = check_arch(arch)
    entries, bundle = [], None
    for index, kernel in enumerate(kernels):
        renamed = replace(kernel, name=f"k{index}_{kernel.name}")
        fm = bool(kernel.fast_math) if fast_math is None else bool(fast_math)
        ir = _cached(("bundle-ir", id(kernel), index, fm), kernel, lambda renamed=renamed, fm=fm: _lower(renamed, fm))
        module = parse_nvptx_ir(ir, kernel.name)
        entries.append(renamed.name)
        if bundle is None:
            bundle = module
        else:
            bundle.link_in(module)
    if bundle is None:
        raise VerikernError("compile_ptx_bundle needs at least one kernel")
    return emit_ptx(bundle, arch, opt_level=opt_level), entries


def ptx_for(handle_or_kernel, arch: str = DEFAULT_ARCH, fast_math: bool | None = None) -> str:
    """PTX for a `@vk.kernel` handle (anything with a `.mir` kernel) or a MIR kernel."""
    kernel = getattr(handle_or_kernel, "mir", handle_or_kernel)
    if not hasattr(kernel, "blocks"):
        raise VerikernError(f"ptx_for needs a @vk.kernel handle or a MIR kernel, not {type(kernel).__name__}")
    return compile_ptx(kernel, arch, fast_math)
