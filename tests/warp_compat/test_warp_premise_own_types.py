"""The typing premise suggested for a generic kernel over a vec9 the module names itself
(tests/cli/prove/test_premise_own_types.py), pasted: real Warp 1.19 builds and runs the
kernel on its CPU device for the module's vec9f (same result as numpy), vk.check_launch
admits that array and refuses a Warp vec3f array, which Warp would read past."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.errors import LaunchError
from verikern.proofs.reporting.paste import pasted, suggestion_inserts
from warp_compat.compat_util import warp_module_from_text

SOURCE = """from typing import Any

import warp as wp

vec9f = wp.types.vector(length=9, dtype=wp.float32)
vec9d = wp.types.vector(length=9, dtype=wp.float64)


@wp.kernel
def pressure_trace(tensors: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < tensors.shape[0] and i < out.shape[0]:
        P = tensors[i]
        out[i] = P[0] + P[4] + P[8]
"""
# the premise verikern suggests for it (asserted in tests/cli/prove/test_premise_own_types.py)
PREMISE = ("@vk.requires(lambda tensors, out: tensors.dtype in (vec9f, vec9d) "
           "and out.dtype in (wp.float32, wp.float64))")


def test_real_warp_runs_the_pasted_kernel_and_check_launch_refuses_a_vec3_array(warp_cpu, tmp_path):
    wp = warp_cpu
    text = pasted(SOURCE, suggestion_inserts(SOURCE, 9, [PREMISE]))
    mod = warp_module_from_text(tmp_path, "import verikern as vk\n" + text, "vk_premise_own_vec9")
    tensors = np.arange(27, dtype=np.float32).reshape(3, 9)
    wt = wp.array(tensors, dtype=mod.vec9f, device="cpu")
    wout = wp.zeros(3, dtype=wp.float32, device="cpu")
    vk.check_launch(mod.pressure_trace, 3, [wt, wout])            # the module's own vec9f: admitted
    wp.launch(mod.pressure_trace, dim=3, inputs=[wt, wout], device="cpu")
    np.testing.assert_allclose(wout.numpy(), tensors[:, 0] + tensors[:, 4] + tensors[:, 8])
    with pytest.raises(LaunchError, match="typing premise"):       # Warp would read past a vec3
        vk.check_launch(mod.pressure_trace, 3, [wp.zeros(3, dtype=wp.vec3f, device="cpu"), wout])
