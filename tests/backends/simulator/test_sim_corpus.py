"""Every corpus kernel decodes for the simulator: each instruction the
frontend emits has simulator semantics (no NotImplementedError)."""
import pytest

from corpus_loader import compiled, corpus_kernel, generated_input_sizes, load_corpus
from verikern.backends.simulator.program import decode

CASES = load_corpus()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_corpus_kernel_decodes(case):
    res = compiled(str(case.path))
    assert res.kernels, f"{case.name}: no kernel compiled ({res.errors})"
    for kr in res.kernels:
        mir = kr.opaque if kr.unknown else kr.mir    # `kernel[...]`: the type-oblivious proof's kernel
        if kr.unknown and mir is None and case.no_opaque is not None:   # none, as the header says
            continue
        assert mir is not None, f"the frontend rejects corpus kernel {case.name}: {kr.error}"
        prog = decode(mir)
        assert prog.segments and prog.segments[0].label == mir.entry.label


PROVED = [c for c in CASES if c.expect_status == "proved"]


def _dims(case, kernel):
    text = case.option("--dim")
    if text:
        parts = tuple(int(p) for p in text.replace("x", ",").split(","))
        return parts[0] if len(parts) == 1 else parts
    return {1: 256, 2: (4, 256), 3: (4, 4, 16), 4: (2, 2, 4, 16)}[kernel.launch_ndim]


@pytest.mark.parametrize("case", PROVED, ids=[c.name for c in PROVED])
def test_proved_corpus_kernels_run_cleanly(case):
    """A kernel the corpus says is proved (in bounds, no division by zero,
    asserts hold, no divergence) must run on the simulator without a runtime
    error on inputs that satisfy its contracts."""
    import numpy as np

    from verikern.inputs import InputGenerationError, make_launch_inputs, ordered_inputs
    from verikern.runtime import launch
    kernel = corpus_kernel(case).mir
    dims = _dims(case, kernel)
    block = case.option("--block-dim")
    try:
        b, values = make_launch_inputs(kernel, dims, np.random.default_rng(0),
                                       block_dim=int(block) if block else None,
                                       sizes=generated_input_sizes(case.name, 256))
    except InputGenerationError as exc:     # the claim would go unchecked: a failure, not a skip
        pytest.fail(f"no generated inputs satisfy the contracts of {case.name}: {exc}")
    launch(kernel, dims, ordered_inputs(kernel, values), block_dim=b)
