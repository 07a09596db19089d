"""A generic kernel with a typing premise (`@vk.requires(lambda positions:
positions.dtype in (wp.vec3f, wp.vec3d))`) is still a Warp module: the
decorator returns the kernel unchanged, real Warp 1.19 launches it on its
CPU device for both admitted dtypes, and vk.launch on the
simulator and cpu:native gives Warp's results for the admitted dtypes while
vk.check_launch refuses the Warp vec2f array."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.errors import LaunchError
from warp_compat.compat_util import warp_module_from_text

KERNEL = '''
from typing import Any

import warp as wp
import verikern as vk


@vk.requires(lambda positions, out: positions.dtype in (wp.vec3f, wp.vec3d)
             and out.shape[0] == positions.shape[0])
@wp.kernel
def weighted_sum(positions: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < positions.shape[0]:
        p = positions[i]
        out[i] = p[0] + p[1] * type(p[0])(2.0) + p[2] * type(p[0])(3.0)
'''


@pytest.mark.parametrize("vec, scalar, np_dtype", [("vec3f", "float32", np.float32),
                                                   ("vec3d", "float64", np.float64)])
def test_the_decorated_kernel_runs_under_warp_and_agrees_with_verikern(warp_cpu, tmp_path, vec, scalar, np_dtype):
    wp = warp_cpu
    mod = warp_module_from_text(tmp_path, KERNEL, f"vk_premise_{vec}")
    pos = (np.arange(15, dtype=np.float64).reshape(5, 3) * 0.25 - 1.0).astype(np_dtype)
    wpos = wp.array(pos, dtype=getattr(wp, vec), device="cpu")
    wout = wp.zeros(5, dtype=getattr(wp, scalar), device="cpu")
    wp.launch(mod.weighted_sum, dim=5, inputs=[wpos, wout], device="cpu")
    theirs = wout.numpy()
    np.testing.assert_allclose(theirs, pos[:, 0] + 2 * pos[:, 1] + 3 * pos[:, 2], rtol=1e-6)
    vk.check_launch(mod.weighted_sum, 5, [wpos, wout])
    for dev in ("cpu", "cpu:native"):
        ours = np.zeros(5, np_dtype)
        vk.launch(mod.weighted_sum, 5, [pos, ours], device=dev)
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, err_msg=dev)


def test_a_warp_vec2_array_is_refused_by_the_premise(warp_cpu, tmp_path):
    wp = warp_cpu
    mod = warp_module_from_text(tmp_path, KERNEL, "vk_premise_vec2")
    wpos = wp.zeros(4, dtype=wp.vec2f, device="cpu")
    wout = wp.zeros(4, dtype=wp.float32, device="cpu")
    # Warp knows nothing of the premise; verikern refuses the launch before anything runs
    with pytest.raises(LaunchError, match="typing premise"):
        vk.check_launch(mod.weighted_sum, 4, [wpos, wout])
    with pytest.raises(LaunchError, match="typing premise"):
        vk.launch(mod.weighted_sum, 4, [wpos, wout])
