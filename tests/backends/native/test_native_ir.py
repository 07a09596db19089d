"""Golden checks on the LLVM IR both targets produce, and PTX generation."""
from __future__ import annotations

import re

import llvmlite.binding as llvm
import pytest

from mir_kernels import atomic_count, block_reverse, elementwise, saxpy
from verikern.backends.llvm import build, lower, lower_module
from verikern.mir.types import F16, F32, I8, I32


def test_atomic_becomes_atomicrmw_add_on_both_targets():
    for target in ("cpu", "nvptx"):
        text = lower(atomic_count(), target)
        assert re.search(r"atomicrmw add i32\* %\S+, i32 1 monotonic", text), text


def test_nvptx_kernel_is_an_annotated_entry_with_sregs_and_barrier():
    text = lower(block_reverse(), "nvptx")
    assert 'target triple = "nvptx64-nvidia-cuda"' in text
    assert "llvm.nvvm.read.ptx.sreg.tid.x" in text
    assert "llvm.nvvm.read.ptx.sreg.ctaid.x" in text
    assert "llvm.nvvm.read.ptx.sreg.ntid.x" in text
    assert 'call void @"llvm.nvvm.barrier0"()' in text
    assert re.search(r'@"block_reverse__shared__buf" = internal addrspace\(3\) global '
                     r'\[64 x i32\] undef, align 16', text)
    assert re.search(r'!nvvm.annotations = !\{ !\d+ \}', text)
    assert re.search(r'!\{ void \(.*\)\* @"block_reverse", !"kernel", i32 1 \}', text)


def test_nvptx_abi_order_arrays_shapes_scalars_launch_dims_err():
    text = lower(block_reverse(), "nvptx")
    sig = re.search(r'define void @"block_reverse"\((.*)\)', text).group(1)
    names = re.findall(r'%"([^"]+)"', sig)
    assert names == ["src", "src.shape0", "dst", "dst.shape0", "rounds", "launch_dim0",
                     "launch_size", "err"]
    assert sig.startswith("i32* noalias")


def test_ptx_generation_yields_entry_bar_sync_and_shared():
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    mod = llvm.parse_assembly(lower(block_reverse(), "nvptx"))
    mod.verify()
    tm = llvm.Target.from_triple("nvptx64-nvidia-cuda").create_target_machine(cpu="sm_80")
    ptx = tm.emit_assembly(mod)
    assert ".visible .entry block_reverse(" in ptx
    assert "bar.sync" in ptx
    assert ".shared .align 16 .b8 block_reverse__shared__buf[256]" in ptx


def test_fast_math_flags_only_when_asked():
    k = saxpy()
    assert "fmul fast float" not in lower(k, "cpu")
    assert "fmul fast float" in lower(k, "cpu", fast_math=True)
    assert "fadd fast float" in lower(k, "nvptx", fast_math=True)
    # integer ops never carry fast-math flags
    assert " fast i32" not in lower(elementwise("binop", "add", I32), "cpu", fast_math=True)


def test_float32_sin_is_double_libm_rounded_once_and_float16_widened():
    text = lower(elementwise("unop", "sin", F32), "cpu")
    assert re.search(r'call double @"sin"\(double', text)
    assert "fptrunc double" in text and "to float" in text
    nv = lower(elementwise("unop", "sin", F32), "nvptx")
    assert '@"__nv_sin"(double' in nv
    half = lower(elementwise("binop", "add", F16), "cpu")
    assert re.search(r"fadd float .*\n.*fptrunc float .* to half", half)


def test_division_and_casts_never_emit_ub():
    div = lower(elementwise("binop", "floordiv", I32), "cpu")
    assert "sdiv i32" in div and re.search(r"select\s+i1 .*, i32 1, i32", div)  # INT_MIN/-1
    assert re.search(r"icmp ne i32 .*, 0\n\s+br i1 .*fail", div)  # zero divisor checked
    assert re.search(r"icmp eq i32 .*, -2147483648", div)       # INT_MIN / -1 checked
    gpu = lower(elementwise("binop", "mod", I32), "nvptx")        # cuda:N: the same check
    assert re.search(r"icmp eq i32 .*, -2147483648", gpu) and "srem i32" in gpu
    narrow = lower(elementwise("binop", "floordiv", I8), "cpu")   # int8 wraps: no check
    assert "-128" in narrow and len(re.findall(r"br i1 .*fail", narrow)) < \
        len(re.findall(r"br i1 .*fail", div))
    cast = lower(elementwise("cast", "", F32, I32), "cpu")
    assert "llvm.fptosi.sat.i32.f32" in cast and "fptosi float" not in cast
    shift = lower(elementwise("binop", "shl", I32), "cpu")
    assert re.search(r"and i32 .*, 31\n.*shl i32", shift)


def test_cpu_module_has_body_and_entry_and_min_max_use_minnum():
    lk = build(saxpy(), "cpu")
    names = {f.name for f in lk.module.functions}
    assert {"vk_body_saxpy", "vk_entry_saxpy"} <= names
    assert "llvm.minnum.f32" in lower(elementwise("binop", "min", F32), "cpu")
    assert lower_module(saxpy(), "cpu").triple


def test_unknown_target_is_refused():
    with pytest.raises(ValueError, match="unknown LLVM target"):
        lower(saxpy(), "amdgpu")


def _corpus_and_example_kernels(markexpr: str | None):
    """Every example's kernels and the corpus's: with `-m slow` every file, else the
    covering sample the corpus verdicts prove (tests/tiers.py, every construct)."""
    from pathlib import Path

    from corpus_loader import compiled, load_corpus
    from tiers import covering_keys_of_the_run

    root = Path(__file__).resolve().parents[3]
    corpus = load_corpus()
    kept = covering_keys_of_the_run((c.name for c in corpus), markexpr)
    paths = [c.path for c in corpus if c.name in kept] + sorted((root / "examples").glob("*.py"))
    out = []
    for p in paths:
        for kr in compiled(p).kernels:
            if kr.mir is not None:
                out.append((f"{p.stem}:{kr.name}", kr.mir))
    return out


def test_every_corpus_and_example_kernel_lowers_to_valid_ir_on_both_targets(request):
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    kernels = _corpus_and_example_kernels(request.config.option.markexpr)
    assert len(kernels) > 50
    for name, k in kernels:
        for target in ("cpu", "nvptx"):
            text = lower(k, target)
            try:
                llvm.parse_assembly(text).verify()
            except RuntimeError as exc:   # pragma: no cover - shows which kernel
                pytest.fail(f"{name} ({target}): {exc}")
