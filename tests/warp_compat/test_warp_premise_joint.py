"""The joint typing premise suggested for a generic kernel with too many typings
(`(positions.dtype, w0.dtype, ...) in ((wp.vec3f, wp.float32, ...), (wp.vec3d, wp.float64, ...))`:
verikern/app/premise_suggestion.py; tests/cli/prove/test_premise_one_precision.py) is valid
Warp as pasted: real Warp 1.19 loads the pasted file and launches the kernel on its CPU device
with float32 arrays and with float64 arrays, each with numpy's result, and vk.check_launch
accepts both launches and refuses a mixed one (float32 weights with float64 heights), which
the premise does not admit."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_source
from verikern.errors import LaunchError
from verikern.proofs.reporting.paste import pasted, suggestion_inserts
from warp_compat.compat_util import warp_module_from_text

WEIGHTS = [f"w{j}" for j in range(12)]
PARAMS = ["positions", *WEIGHTS, "heights"]
KERNEL = ("from typing import Any\n\nimport warp as wp\n\n\n@wp.kernel\n"
          "def weigh_heights(" + ", ".join(f"{p}: wp.array(dtype=Any)" for p in PARAMS) + "):\n"
          "    i = wp.tid()\n"
          "    heights[i] = positions[i][2] * w0[0] * wp.sqrt(" + " + ".join(f"{w}[i]" for w in WEIGHTS[1:]) + ")\n")


@pytest.fixture(scope="module")
def suggested() -> str:
    """The kernel's file with the suggestion pasted as users are told to."""
    reports = prove_source(KERNEL, "w.py", suggest=True)
    decorators = next(r.suggested_decorators for r in reports if r.proved_under_suggestion)
    assert decorators[0].startswith("@vk.requires(lambda positions, w0,") and ") in ((wp.vec3f, wp.float32" \
        in decorators[0] and "(wp.vec3d, wp.float64" in decorators[0], decorators
    return pasted(KERNEL, suggestion_inserts(KERNEL, 6, list(decorators)))


def _launch_args(wp, pos, ws, scalar, vec):
    return [wp.array(pos, dtype=vec, device="cpu"), *(wp.array(w, dtype=scalar, device="cpu") for w in ws),
            wp.zeros(len(pos), dtype=scalar, device="cpu")]


def test_the_pasted_joint_premise_runs_under_warp_at_both_precisions(warp_cpu, tmp_path, suggested):
    wp = warp_cpu
    mod = warp_module_from_text(tmp_path, suggested, "vk_premise_joint")
    n = 6
    rng = np.random.default_rng(7)
    pos = rng.uniform(-2, 2, (n, 3))
    ws = [rng.uniform(0.1, 1.0, n) for _ in WEIGHTS]
    expected = pos[:, 2] * ws[0][0] * np.sqrt(np.sum(ws[1:], axis=0))
    for np_t, scalar, vec, rtol in ((np.float32, wp.float32, wp.vec3f, 1e-5),
                                    (np.float64, wp.float64, wp.vec3d, 1e-12)):
        args = _launch_args(wp, pos.astype(np_t), [w.astype(np_t) for w in ws], scalar, vec)
        vk.check_launch(mod.weigh_heights, n, args)       # admitted by the premise, and its contract holds
        wp.launch(mod.weigh_heights, dim=n, inputs=args, device="cpu")
        np.testing.assert_allclose(args[-1].numpy(), expected, rtol=rtol)
    mixed = _launch_args(wp, pos.astype(np.float32), [w.astype(np.float32) for w in ws], wp.float32, wp.vec3f)
    mixed[-1] = wp.zeros(n, dtype=wp.float64, device="cpu")     # float64 heights beside float32 weights
    with pytest.raises(LaunchError, match="typing premise"):
        vk.check_launch(mod.weigh_heights, n, mixed)
