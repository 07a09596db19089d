"""Every example of examples/ run through the C library that `verikern
build --checks unproved` writes (a vk.launch device calling its C entry
points) equals the simulator: arrays of every element type and vector
type, 2-D launches, fixed block sizes, shared memory, barriers, atomics."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from cabi_helpers import needs_cc
from shared_helpers import EXAMPLE_FILES as EXAMPLES
from verikern import runtime
from verikern.lang import KernelHandle
from verikern.mir.nodes import Atomic

SIZE = 1000
SIDE_SIZES = {"matmul": 70, "conv2d": 90, "transpose": 90}   # n is a side length there


def load(path: Path):
    spec = importlib.util.spec_from_file_location(f"vk_cabi_example_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def float_atomics(module) -> bool:
    return any(isinstance(value, KernelHandle) and any(
        isinstance(i, Atomic) and i.array.dtype.is_float for _, i in value.mir.instructions())
        for value in vars(module).values())


@needs_cc
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_through_its_c_library_equals_the_simulator(path, monkeypatch):
    monkeypatch.setitem(runtime.DEVICES, "c-lib", ("cabi_device", "run"))
    ex = load(path)
    inputs = ex.make_inputs(np.random.default_rng(5), SIDE_SIZES.get(path.stem, SIZE))
    sim = ex.run(inputs, device="cpu")
    lib = ex.run(inputs, device="c-lib")
    assert sim.keys() == lib.keys()
    for name in sim:
        s, c = np.asarray(sim[name]), np.asarray(lib[name])
        if float_atomics(ex):      # float atomics: additions happen in another order
            np.testing.assert_allclose(c, s, rtol=1e-5, atol=1e-5, err_msg=name)
        else:
            assert s.dtype == c.dtype and s.tobytes() == c.tobytes(), \
                f"{path.stem}: {name} differs between the simulator and the C library"
