"""PTX toolchain: arch names, LLVM NVPTX emission of hand-written IR, ptxas -v parsing."""
import pytest

from verikern.backends.ptx import (
    ArchError, assemble, assemble_many, check_arch, compile_llvm_ir, find_ptxas,
    parse_ptxas_verbose, ptxas_archs, ptxas_version,
)

PTXAS = find_ptxas()
needs_ptxas = pytest.mark.skipif(PTXAS is None, reason="ptxas not found (pip install 'verikern[cuda]')")

# Hand-written NVPTX IR exercising what verikern kernels use: a global pointer,
# a 64-float shared array, a barrier, atomics and fast div/sqrt.
FAST_IR = r'''
@tile = internal addrspace(3) global [64 x float] undef, align 4
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()
declare float @llvm.sqrt.f32(float)
define ptx_kernel void @probe(ptr addrspace(1) %p, float %a, float %b) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %q = getelementptr float, ptr addrspace(1) %p, i32 %t
  %d = fdiv afn arcp float %a, %b
  %s = call afn float @llvm.sqrt.f32(float %d)
  %sp = getelementptr float, ptr addrspace(3) @tile, i32 %t
  store float %s, ptr addrspace(3) %sp
  call void @llvm.nvvm.barrier0()
  %v = load float, ptr addrspace(3) %sp
  %o = atomicrmw fadd ptr addrspace(1) %q, float %v monotonic
  %o2 = atomicrmw add ptr addrspace(3) %sp, i32 1 monotonic
  ret void
}
attributes #0 = { "denormal-fp-math-f32"="preserve-sign" }
'''
PRECISE_IR = (FAST_IR.replace("fdiv afn arcp", "fdiv").replace("call afn float", "call float")
              .replace(" #0 {", " {").split("attributes #0")[0])

# Real `ptxas -v` output of CUDA 13.0 for two entries (one with a stack frame).
PTXAS_LOG = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k' for 'sm_80'
ptxas info    : Function properties for k
    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem, 368 bytes cmem[0]
ptxas info    : Compile time = 35.935 ms
ptxas info    : Compiling entry function 'other' for 'sm_80'
ptxas info    : Function properties for other
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 6 registers, used 0 barriers, 360 bytes cmem[0]
"""


@pytest.mark.parametrize("arch", ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_120"])
def test_supported_arch_names_pass(arch):
    assert check_arch(arch) == arch


def test_bare_number_is_normalised():
    assert check_arch("90") == "sm_90"


@pytest.mark.parametrize("arch", ["sm_70", "sm_60", "sm_52"])
def test_old_arch_rejected_with_reason(arch):
    with pytest.raises(ArchError, match="sm_75 or newer"):
        check_arch(arch)


@pytest.mark.parametrize("arch", ["sm_999", "sm_77"])
def test_arch_unknown_to_llvm_rejected(arch):
    with pytest.raises(ArchError, match="does not know"):
        check_arch(arch)


def test_non_arch_string_rejected():
    with pytest.raises(ArchError, match="not a GPU architecture name"):
        check_arch("ampere")


@pytest.mark.parametrize("arch,version", [("sm_75", "6.3"), ("sm_80", "7.0"), ("sm_90", "7.8"), ("sm_100", "8.6")])
def test_emitted_target_and_version(arch, version):
    ptx = compile_llvm_ir(PRECISE_IR, arch)
    assert f".target {arch}" in ptx
    assert f".version {version}" in ptx
    assert ".visible .entry probe(" in ptx


def test_fast_math_flags_give_approximate_div_and_sqrt():
    fast = compile_llvm_ir(FAST_IR, "sm_80")
    precise = compile_llvm_ir(PRECISE_IR, "sm_80")
    assert "div.approx" in fast and "sqrt.approx" in fast
    assert "div.rn.f32" in precise and "sqrt.rn.f32" in precise
    assert "approx" not in precise and ".ftz" not in precise


def test_shared_barrier_atomics_in_ptx():
    ptx = compile_llvm_ir(PRECISE_IR, "sm_80")
    assert ".shared .align 4 .b8 tile[256]" in ptx
    assert "bar.sync" in ptx
    assert "atom.global.add.f32" in ptx
    assert "atom.shared.add.u32" in ptx


def test_bad_ir_is_a_clear_error():
    from verikern.backends.ptx import PtxCompileError

    with pytest.raises(PtxCompileError, match="LLVM rejected the NVPTX IR of broken"):
        compile_llvm_ir("define void @f( {", "sm_80", name="broken")


def test_parse_ptxas_verbose():
    entries = parse_ptxas_verbose(PTXAS_LOG)
    assert set(entries) == {"k", "other"}
    k = entries["k"]
    assert (k.registers, k.shared_bytes, k.stack_bytes, k.spill_stores, k.spill_loads, k.barriers) == \
        (40, 1024, 16, 8, 4, 1)
    assert (entries["other"].registers, entries["other"].shared_bytes) == (6, 0)
    # a .func (libdevice's slow trig path) has properties but is no entry
    func = ("ptxas info    : Function properties for __internal_trig_reduction_slowpathd\n"
            "    40 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n")
    assert set(parse_ptxas_verbose(func + PTXAS_LOG)) == {"k", "other"}
    assert set(parse_ptxas_verbose(PTXAS_LOG + func)) == {"k", "other"}
    assert entries["k"] == parse_ptxas_verbose(PTXAS_LOG + func)["k"]


@needs_ptxas
def test_ptxas_identity():
    major, _minor = ptxas_version()
    assert major >= 12
    archs = ptxas_archs()
    assert {"sm_75", "sm_80", "sm_90"} <= archs


@needs_ptxas
@pytest.mark.parametrize("arch", ["sm_75", "sm_80", "sm_90", "sm_100"])
def test_assemble_reports_resources(arch):
    res = assemble(compile_llvm_ir(PRECISE_IR, arch), arch)
    assert res.ok, res.log
    assert res.shared_bytes == 256          # 64 floats, the only shared array
    assert res.registers > 0
    assert res.entries["probe"].barriers == 1
    assert res.cubin and res.cubin[:4] == b"\x7fELF"


@needs_ptxas
def test_assemble_reports_stack_frame():
    ptx = """.version 7.0
.target sm_80
.address_size 64
.visible .entry frame(.param .u64 frame_param_0)
{
	.local .align 4 .b8 __local_depot0[16];
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [frame_param_0];
	ret;
}
"""
    res = assemble(ptx, "sm_80")
    assert res.ok, res.log
    assert res.stack_bytes == 16


@needs_ptxas
def test_assemble_failure_is_a_result_with_the_log():
    res = assemble(".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry bad() { bogus; }\n", "sm_80")
    assert not res.ok
    assert "error" in res.log.lower()
    assert res.cubin is None


@needs_ptxas
def test_assemble_unknown_gpu_name_explains():
    res = assemble(compile_llvm_ir(PRECISE_IR, "sm_75"), "sm_70")
    assert not res.ok
    assert "does not know sm_70" in res.log


@needs_ptxas
def test_assemble_many_runs_each_module():
    mods = {"fast": compile_llvm_ir(FAST_IR, "sm_90"), "precise": compile_llvm_ir(PRECISE_IR, "sm_90")}
    results = assemble_many(mods, "sm_90", jobs=2)
    assert set(results) == {"fast", "precise"}
    assert all(r.ok for r in results.values())


def test_missing_ptxas_is_a_clear_error(monkeypatch, tmp_path):
    from verikern.backends.ptx import PtxasNotFoundError, toolchain

    monkeypatch.setattr(toolchain, "_candidate_paths", lambda: [tmp_path / "ptxas"])
    assert toolchain.find_ptxas() is None
    with pytest.raises(PtxasNotFoundError, match=r"pip install 'verikern\[cuda\]'"):
        assemble(".version 7.0\n", "sm_80")


@needs_ptxas
def test_too_new_ptx_isa_explains():
    ptx = compile_llvm_ir(PRECISE_IR, "sm_80").replace(".version 7.0", ".version 99.0")
    res = assemble(ptx, "sm_80")
    assert not res.ok
    assert "PTX ISA version is newer than this ptxas" in res.log


def test_ptxas_from_cuda_home(monkeypatch, tmp_path):
    from verikern.backends.ptx import toolchain

    fake = tmp_path / "bin" / "ptxas"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 12.8, V12.8.93'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", "")
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    assert toolchain.find_ptxas() == fake
    assert toolchain.ptxas_version(fake) == (12, 8)


def test_ptxas_from_the_nvcc_wheel(monkeypatch):
    from verikern.backends.ptx import toolchain

    wheel = [p for p in toolchain._wheel_ptxas_paths() if p.is_file()]
    if not wheel:
        pytest.skip("the nvidia-cuda-nvcc wheel is not installed")
    monkeypatch.setenv("PATH", "")
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    assert toolchain.find_ptxas() == wheel[0]


def test_assemble_result_field_order():
    from dataclasses import fields

    from verikern.backends.ptx import AssembleResult

    assert [f.name for f in fields(AssembleResult)][:7] == [
        "ok", "registers", "shared_bytes", "spill_stores", "spill_loads", "stack_bytes", "log"]
