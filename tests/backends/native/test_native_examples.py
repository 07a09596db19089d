"""cpu:native equals the simulator on every example of examples/ (each has
make_inputs / run), and both are close to the example's numpy reference."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from verikern.mir.nodes import Atomic

from shared_helpers import EXAMPLE_FILES as EXAMPLES
SIZE = 1024
SIDE_SIZES = {"matmul": 70, "conv2d": 90, "transpose": 90}   # n is a side length there


def load(path: Path):
    spec = importlib.util.spec_from_file_location(f"vk_example_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def float_atomics(module) -> bool:
    from verikern.lang import KernelHandle
    for value in vars(module).values():
        if isinstance(value, KernelHandle) and any(
                isinstance(i, Atomic) and i.array.dtype.is_float
                for _, i in value.mir.instructions()):
            return True
    return False


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_native_equals_simulator(path):
    ex = load(path)
    inputs = ex.make_inputs(np.random.default_rng(3), SIDE_SIZES.get(path.stem, SIZE))
    sim = ex.run(inputs, device="cpu")
    nat = ex.run(inputs, device="cpu:native")
    assert sim.keys() == nat.keys()
    tolerant = float_atomics(ex)
    for name in sim:
        s, n = np.asarray(sim[name]), np.asarray(nat[name])
        if tolerant:   # float atomics: additions happen in another order
            np.testing.assert_allclose(n, s, rtol=1e-5, atol=1e-5, err_msg=name)
        else:
            assert s.dtype == n.dtype and s.tobytes() == n.tobytes(), \
                f"{path.stem}: {name} differs between cpu and cpu:native"
    if hasattr(ex, "reference"):
        want = ex.reference(inputs)
        for name, ref in want.items():
            np.testing.assert_allclose(np.asarray(nat[name], dtype=np.float64), ref,
                                       rtol=1e-3, atol=1e-3, err_msg=name)


def test_examples_are_present():
    assert EXAMPLES, "examples/ is empty"
