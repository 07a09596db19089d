"""cpu:native equals the simulator on every correct corpus kernel
(`# expect: proved`), on generated inputs that satisfy their contracts, and
on hypothesis-generated array contents for a few of them."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from corpus_loader import corpus_kernel as corpus_kernel_result, load_corpus
from verikern.inputs import inputs_strategy, make_inputs, ordered_inputs
from verikern.mir.nodes import Atomic
from verikern.errors import BarrierDivergenceError
from verikern.runtime import launch

PROVED = [c for c in load_corpus() if c.expect_status == "proved"]


def corpus_kernel(case):
    return corpus_kernel_result(case).mir


# launches and array sizes for kernels whose contracts the generic input
# generator cannot satisfy by itself: name -> (dims, block_dim, sizes)
OVERRIDES = {
    "ok_atomic_min_max_global": (320, 64, {"lo": (1,), "hi": (1,)}),
    "ok_conv3x3_zero_pad": ((24, 40), 64, {"img": (24, 40), "w": (3, 3), "out": (24, 40)}),
    "ok_histogram_shared_privatized": (320, 64, {"bins": (300,), "hist": (16,)}),
    "ok_matmul_tiled": ((3, 512), 256, {"a": (40, 20), "b": (20, 40), "c": (40, 40)}),
    "ok_shared_reverse_requires_block_dim": (512, 128, {}),
    "ok_transpose_tiled": ((2, 512), 256, {"a": (50, 60), "out": (60, 50)}),
    "bounds_transpose_tiled_no_edge_guard": ((2, 512), 256, {"a": (50, 60), "out": (60, 50)}),
    "bounds_uint32_product_int64_wraps": (1, 1, {"out": (1,)}),
    "ok_stride_row_int64_length": (256, 64, {"grad": (256, 3, 4), "contribs": (256, 36), "out": (256, 3)}),
}


def generated_inputs(case, kernel, dims, block, seed=7):
    sizes = OVERRIDES.get(case.name, (None, None, None))[2]
    return make_inputs(kernel, dims, block, np.random.default_rng(seed), sizes=sizes)


def launch_shape(case, kernel):
    if case.name in OVERRIDES:
        return OVERRIDES[case.name][:2]
    block = int(case.option("--block-dim") or kernel.block_dim or 64)
    dim_opt = case.option("--dim")
    if dim_opt:
        dims = tuple(int(d) for d in dim_opt.split(","))
    elif kernel.launch_ndim == 1:
        dims = (block * 5,)
    else:
        dims = (24, 40, 4, 4)[:kernel.launch_ndim]
    if kernel.uses_block_features and int(np.prod(dims)) % block:
        dims = (block * 4,) + dims[1:]
    return dims if len(dims) > 1 else dims[0], block


def float_atomics(kernel) -> bool:
    return any(isinstance(i, Atomic) and i.array.dtype.is_float
               for _, i in kernel.instructions())


def compare(kernel, dims, block, values):
    """Launch on both devices from copies of `values`; compare every array."""
    outs = {}
    for dev in ("cpu", "cpu:native"):
        inputs = ordered_inputs(kernel, {k: (v.copy() if isinstance(v, np.ndarray) else v)
                                         for k, v in values.items()})
        launch(kernel, dims, inputs, block_dim=block, device=dev)
        outs[dev] = inputs
    for p, sim, nat in zip(kernel.params, outs["cpu"], outs["cpu:native"]):
        if not isinstance(sim, np.ndarray):
            continue
        if float_atomics(kernel):   # atomics add floats in a different order
            np.testing.assert_allclose(nat, sim, rtol=1e-5, atol=1e-5, err_msg=p.name)
        else:
            assert sim.tobytes() == nat.tobytes(), f"{kernel.name}: array {p.name} differs"


@pytest.mark.parametrize("case", PROVED, ids=lambda c: c.name)
def test_proved_corpus_kernel_matches_simulator(case):
    kernel = corpus_kernel(case)
    dims, block = launch_shape(case, kernel)
    values = generated_inputs(case, kernel, dims, block)
    compare(kernel, dims, block, values)


HYPOTHESIS_CASES = [c for c in PROVED if c.name in (
    "ok_saxpy_guarded", "ok_histogram_shared_privatized", "ok_2d_stencil_5pt_halo",
    "ok_gather_in_range")]


@pytest.mark.parametrize("case", HYPOTHESIS_CASES, ids=lambda c: c.name)
def test_corpus_kernel_on_hypothesis_inputs(case):
    kernel = corpus_kernel(case)
    dims, block = launch_shape(case, kernel)

    sizes = OVERRIDES.get(case.name, (None, None, None))[2]

    @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
    @given(inputs_strategy(kernel, dims, block, sizes=sizes))
    def check(values):
        compare(kernel, dims, block, values)

    check()


def test_corpus_is_present():
    assert len(PROVED) >= 10


CHECKED_FAILURES = [c for c in load_corpus() if c.expect_status == "failed"
                    and c.failing_kinds & {"bounds", "div-zero", "assert", "divergence",
                                           "invariant"}
                    and "race" not in c.failing_kinds]


@pytest.mark.parametrize("case", CHECKED_FAILURES, ids=lambda c: c.name)
def test_failing_corpus_kernel_fails_the_same_way(case):
    """Where the simulator raises on generated inputs, cpu:native raises the
    same error class at the same source location; where it does not, the
    arrays agree."""
    from verikern.errors import KernelRuntimeError, UninitializedReadError
    from verikern.inputs import InputGenerationError

    kernel = corpus_kernel(case)
    dims, block = launch_shape(case, kernel)
    try:
        values = generated_inputs(case, kernel, dims, block, seed=11)
    except InputGenerationError as exc:     # the claim would go unchecked: a failure, not a skip
        pytest.fail(f"no generated inputs satisfy the contracts of {case.name} (add an OVERRIDES entry): {exc}")
    results = {}
    for dev in ("cpu", "cpu:native"):
        inputs = ordered_inputs(kernel, {k: (v.copy() if isinstance(v, np.ndarray) else v)
                                         for k, v in values.items()})
        try:
            launch(kernel, dims, inputs, block_dim=block, device=dev)
            results[dev] = inputs
        except KernelRuntimeError as exc:
            results[dev] = exc
    sim, nat = results["cpu"], results["cpu:native"]
    if isinstance(sim, UninitializedReadError):
        # only the simulator tracks which shared elements were written
        # (docs/LANGUAGE.md section 4): cpu:native runs on, so there is no
        # error to compare; the corpus case must name this uninit site
        assert (sim.loc.line, "uninit") in {(b.line, b.kind) for b in case.bugs}, sim
        return
    if isinstance(sim, Exception):
        assert type(nat) is type(sim), f"simulator: {sim!r}\nnative: {nat!r}"
        if not isinstance(sim, BarrierDivergenceError):
            assert nat.loc == sim.loc
    else:
        assert not isinstance(nat, Exception), nat
        for p, s, n in zip(kernel.params, sim, nat):
            if isinstance(s, np.ndarray):
                assert s.tobytes() == n.tobytes(), p.name
