"""Golden PTX of kernels written in the language (through the frontend):
`.entry`, bar.sync, .shared, atom.*, and fast_math's approximate div/sqrt."""
import re

import pytest

from verikern.backends.ptx import compile_ptx
from verikern.frontend import compile_source

ATOMICS = '''import verikern as vk

@vk.kernel(block_dim=64)
def atomics(x: vk.array(dtype=vk.float32), total: vk.array(dtype=vk.float32),
            flags: vk.array(dtype=vk.int32), hist: vk.array(dtype=vk.int32)):
    vk.requires(total.shape[0] == 1 and flags.shape[0] == 2 and hist.shape[0] == 8)
    bins = vk.shared.array(shape=(8,), dtype=vk.int32)
    t = vk.thread_idx()
    i = vk.tid()
    if t < 8:
        bins[t] = 0
    vk.sync_threads()
    if i < x.shape[0]:
        vk.atomic_add(total, 0, x[i])
        bins[i % 8] += 1
        vk.atomic_cas(flags, 0, 0, 1)
        vk.atomic_max(flags, 1, i)
    vk.sync_threads()
    if t < 8:
        hist[t] += bins[t]
'''

MATH = '''import verikern as vk
{options}

@vk.kernel
def math(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32), z: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < x.shape[0] and i < y.shape[0] and i < z.shape[0]:
        y[i] = vk.sqrt(x[i] / y[i])
        z[i] = vk.sqrt_precise(x[i])
'''


def kernel_of(source, name):
    result = compile_source(source, f"{name}.py").kernel(name)
    assert result.mir is not None, result.error
    return result.mir


@pytest.fixture(scope="module")
def atomics_ptx():
    return compile_ptx(kernel_of(ATOMICS, "atomics"), "sm_80")


def test_entry_barriers_and_shared(atomics_ptx):
    assert re.search(r"^\.visible \.entry atomics\(", atomics_ptx, re.M)
    assert len(re.findall(r"\b(bar|barrier)\.sync\s+0;", atomics_ptx)) == 2
    assert re.search(r"\.shared \.align \d+ \.b8 atomics__shared__bins\[32\];", atomics_ptx)


@pytest.mark.parametrize("pattern", [
    r"atom(\.\w+)*\.global\.add\.f32",     # vk.atomic_add on float32
    r"atom(\.\w+)*\.shared\.add\.u32",     # bins[k] += 1 on a shared int32 array
    r"atom(\.\w+)*\.global\.cas\.b32",     # vk.atomic_cas
    r"atom(\.\w+)*\.global\.max\.s32",     # vk.atomic_max on int32
    r"atom(\.\w+)*\.global\.add\.u32",     # hist[t] += ... on a global int32 array
])
def test_atomics_are_atom_instructions(atomics_ptx, pattern):
    assert re.search(rf"\b{pattern}\b", atomics_ptx), pattern


def _math_ptx(options):
    return compile_ptx(kernel_of(MATH.format(options=options), "math"), "sm_80")


def test_fast_math_module_option_gives_approximate_forms():
    ptx = _math_ptx('vk.set_module_options({"fast_math": True})')
    assert re.search(r"\bdiv\.approx(\.ftz)?\.f32\b", ptx)
    assert re.search(r"\bsqrt\.approx(\.ftz)?\.f32\b", ptx)
    assert re.search(r"\bsqrt\.rn(\.ftz)?\.f32\b", ptx)      # sqrt_precise stays correctly rounded


def test_default_math_is_ieee_rounded():
    ptx = _math_ptx("")
    assert re.search(r"\bdiv\.rn\.f32\b", ptx)
    assert len(re.findall(r"\bsqrt\.rn\.f32\b", ptx)) == 2
    assert "approx" not in ptx
