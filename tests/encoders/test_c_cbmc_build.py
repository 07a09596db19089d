"""What the CBMC build of the C harness leaves out to keep CBMC's formula
small (docs/C_ENCODER.md, "What made CBMC fast"): no memset (CBMC's model of
it lets a local die, which puts a dead-object check on every later
dereference), and CBMC's pointer checks off exactly around the element
accesses of arrays of several dimensions, right after the VK_FLAT_IN_BOUNDS
theorem that implies them. The real CBMC's answers on such kernels are
checked in tests/proofs/test_cbmc_real.py."""
from __future__ import annotations

import re

from verikern.encoders.c import emit_c
from verikern.frontend import compile_source

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
    # the load and the store of img[i, j]; never v (1-D) or pts (inner vector dims)
    assert accesses == [["img"], ["img"]]
    for w in wrapped:
        assert "__CPROVER_assert" not in w and "VK_SOFT_CHECK" not in w and "VK_CHECK" not in w
    # each follows the theorem on the same flat index (T->flat not set again between)
    for before in text.split("\nVK_IMPLIED_BEGIN\n")[:-1]:
        last = before.rsplit("VK_FLAT_IN_BOUNDS(T->flat < L->g0_img_count);", 1)
        assert len(last) == 2 and "T->flat =" not in last[1]
    # the macro turns the checks off for CBMC only, and back on after
    assert ('#define VK_IMPLIED_BEGIN _Pragma("CPROVER check push") '
            '_Pragma("CPROVER check disable \\"pointer\\"")') in text
    assert '#define VK_IMPLIED_END _Pragma("CPROVER check pop")' in text
