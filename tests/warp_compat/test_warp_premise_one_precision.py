"""The one-precision typing premise suggested for a generic kernel with too many typings
(verikern/app/premise_suggestion.py, candidates (d); tests/cli/prove/test_premise_one_precision.py)
is valid Warp as pasted: real Warp 1.19 loads the pasted file and launches the kernel on its
CPU device with float32 arrays, with numpy's result, and vk.check_launch accepts that launch
and refuses float64 arrays, which the premise does not admit."""
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
    assert "positions.dtype == wp.vec3f" in decorators[0], decorators
    return pasted(KERNEL, suggestion_inserts(KERNEL, 6, list(decorators)))


def test_the_pasted_float32_premise_runs_under_warp(warp_cpu, tmp_path, suggested):
    wp = warp_cpu
    mod = warp_module_from_text(tmp_path, suggested, "vk_premise_one_precision")
    n = 6
    rng = np.random.default_rng(7)
    pos = rng.uniform(-2, 2, (n, 3)).astype(np.float32)
    ws = [rng.uniform(0.1, 1.0, n).astype(np.float32) for _ in WEIGHTS]
    args = [wp.array(pos, dtype=wp.vec3f, device="cpu"), *(wp.array(w, dtype=wp.float32, device="cpu") for w in ws),
            wp.zeros(n, dtype=wp.float32, device="cpu")]
    vk.check_launch(mod.weigh_heights, n, args)           # admitted by the premise, and its contract holds
    wp.launch(mod.weigh_heights, dim=n, inputs=args, device="cpu")
    expected = pos[:, 2] * ws[0][0] * np.sqrt(np.sum(ws[1:], axis=0))
    np.testing.assert_allclose(args[-1].numpy(), expected, rtol=1e-5)
    doubles = [wp.array(pos.astype(np.float64), dtype=wp.vec3d, device="cpu"),
               *(wp.array(w.astype(np.float64), dtype=wp.float64, device="cpu") for w in ws),
               wp.zeros(n, dtype=wp.float64, device="cpu")]
    with pytest.raises(LaunchError, match="typing premise"):
        vk.check_launch(mod.weigh_heights, n, doubles)
