"""What the CBMC build of the C harness leaves out to keep CBMC's formula
small (docs/C_ENCODER.md, "What made CBMC fast"): no memset (CBMC's model of
it lets a local die, which puts a dead-object check on every later
dereference), and CBMC's pointer checks off exactly around the element
accesses of arrays of several dimensions, right after the VK_FLAT_IN_BOUNDS
theorem that implies them. The real CBMC's answers on such kernels are
checked in tests/proofs/test_cbmc_real.py."""
from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import replace

import pytest

from verikern.encoders.c import emit_c
from verikern.encoders.c.emitter import StepEmitter
from verikern.encoders.c.prelude import prelude
from verikern.frontend import compile_source
from verikern.mir.nodes import Const
from verikern.mir.types import I32

SOURCE = '''
import verikern as vk

@vk.kernel
def mixed(img: vk.array(dtype=vk.float32, ndim=2), v: vk.array(dtype=vk.float32),
          pts: vk.array(dtype=vk.vec3)):
    i, j = vk.tid()
    if i < img.shape[0] and j < img.shape[1] and j < v.shape[0] and j < pts.shape[0]:
        img[i, j] = img[i, j] + v[j] + pts[j][0]
'''


def c_text() -> str:
    return emit_c(compile_source(SOURCE, "k.py").kernel("mixed").mir)


def test_the_harness_calls_no_memset():
    assert "memset(" not in c_text()


def test_pointer_checks_are_off_only_around_accesses_of_several_dimensions():
    text = c_text()
    wrapped = re.findall(r"^VK_IMPLIED_BEGIN\n(.*?)^VK_IMPLIED_END$", text, re.S | re.M)
    accesses = [re.findall(r"L->g\d+_(\w+)\[T->flat\]", w) for w in wrapped]
    # the load and the store of img[i, j] and pts[j][0] (a constant component of an
    # inner vector dim, session 16); never v (1-D)
    assert sorted(a for a, in accesses) == ["img", "img", "pts"]
    for w in wrapped:
        assert "__CPROVER_assert" not in w and "VK_SOFT_CHECK" not in w and "VK_CHECK" not in w
    # each follows the theorem on the same flat index (T->flat not set again between)
    for before, (name,) in zip(text.split("\nVK_IMPLIED_BEGIN\n")[:-1], accesses):
        last = before.rsplit(f"_{name}_count);", 1)
        assert len(last) == 2 and "T->flat =" not in last[1]
        assert last[0].rsplit("\n", 1)[1].lstrip().startswith("VK_FLAT_IN_BOUNDS(T->flat < L->g")
    # the macro turns the checks off for CBMC only, and back on after
    assert ('#define VK_IMPLIED_BEGIN _Pragma("CPROVER check push") '
            '_Pragma("CPROVER check disable \\"pointer\\"")') in text
    assert '#define VK_IMPLIED_END _Pragma("CPROVER check pop")' in text


def test_pointer_checks_stay_unless_every_component_index_is_a_constant_inside_its_dim():
    """`flat < count` is a theorem only when every inner index is a constant
    inside its dim (the frontend's component loads are; a MIR load with a
    component index computed at run time, or a constant past the vector,
    keeps CBMC's pointer checks)."""
    k = compile_source(SOURCE, "k.py").kernel("mixed").mir
    load = next(ins for _, ins in k.instructions() if ins.OPCODE == "load" and ins.array.name == "pts")
    logical, component = load.indices
    assert isinstance(component, Const) and StepEmitter.pointer_checks_implied(load)
    assert not StepEmitter.pointer_checks_implied(replace(load, indices=(logical, logical)))
    assert not StepEmitter.pointer_checks_implied(replace(load, indices=(logical, Const(3, I32))))
    plain = next(ins for _, ins in k.instructions() if ins.OPCODE == "load" and ins.array.name == "v")
    assert not StepEmitter.pointer_checks_implied(plain)       # 1-D, no inner dims


_COUNT_MAIN = r'''
#include <stdio.h>
int main(void) {
    unsigned long long n, x, c; int fits;
    while (scanf("%d %llu %llu %llu", &fits, &n, &x, &c) == 4)
        printf("%d\n", vk_count_fits(fits, n, x, c) ? 1 : 0);
    return 0;
}
'''


@pytest.mark.parametrize("max_bytes", [None, 1 << 44, 1 << 60])
def test_an_arrays_element_count_is_bounded_exactly_without_a_128_bit_product(tmp_path, max_bytes):
    """vk_count_fits (the third and later dims of an array's count) against
    Python's exact products: n * x <= c, with n the exact product so far
    when `fits` (n <= c), and an unknown one otherwise; at the default 2**40
    bytes, 2**44, and past 2**48 (the __builtin_mul_overflow fallback)."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    src = tmp_path / "count.c"
    src.write_text(prelude() + _COUNT_MAIN)
    define = [] if max_bytes is None else [f"-DVK_MAX_ARRAY_BYTES={max_bytes}ull"]
    subprocess.run([cc, "-std=c11", "-O1", *define, str(src), "-o", str(tmp_path / "count"), "-lm"],
                   check=True, capture_output=True)
    top = (1 << 40) if max_bytes is None else max_bytes
    ns = {0, 1, 2, (1 << 32) - 1, (1 << 33) - 1, 1 << 33, (1 << 33) + 1, 1 << 40, (1 << 40) + 1,
          1 << 45, 1 << 61, (1 << 62) - 1, ((1 << 31) - 1) ** 2}
    xs = {0, 1, 2, 127, 128, 129, 255, 256, 1 << 15, (1 << 16) + 1, 1 << 30, (1 << 31) - 1}
    cs = {0, 1, top >> 2, top >> 3, top >> 5, top}
    cases = [(int(n <= c), n, x, c) for n in ns for x in xs for c in cs]
    cases += [(0, n, x, c) for n in ns for x in xs for c in cs if n <= c]   # n: not the product
    done = subprocess.run([str(tmp_path / "count")], input="".join(
        f"{f} {n} {x} {c}\n" for f, n, x, c in cases), capture_output=True, text=True, check=True)
    got = [int(v) for v in done.stdout.split()]
    want = [int(x == 0 or (f == 1 and n * x <= c)) for f, n, x, c in cases]
    assert got == want


def test_races_on_a_2d_array_compare_packed_index_pairs_under_cbmc_only():
    text = c_text()
    calls = re.findall(r"vk_race_(?:hit|record)\(R, \d+, (.*?)\)\)?;?$", text, re.M)
    # img[i, j] is written and read (a race pair); its key is VK_RACE_KEY, which
    # the replay build reads as the flat index (the shadow memory's too)
    assert calls and all(c.startswith("VK_RACE_KEY(T->flat, ((uint64_t)(uint32_t)(") for c in calls)
    assert "#define VK_RACE_KEY(flat, packed) (flat)" in text      # replay
    assert "#define VK_RACE_KEY(flat, packed) (packed)" in text    # CBMC
