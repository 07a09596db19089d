"""vk.launch / prepare_launch: every refusal is a clear LaunchError or
ContractError naming the kernel, the parameter and what to do."""
import importlib.util
import textwrap

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from verikern.backends.contracts import all_in_range_quick
from verikern.errors import ContractError, LaunchError
from verikern.runtime import DEVICES, LaunchConfig, launch, prepare_launch

SRC = textwrap.dedent('''
import verikern as vk

@vk.kernel
def scale(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), k: vk.int32, f: vk.float32):
    vk.requires(k > 0)
    vk.requires(x.shape[0] == out.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        out[i] = x[i] * f + float(k)

@vk.kernel
def gather(idx: vk.array(dtype=vk.int32), src: vk.array(dtype=vk.float32), dst: vk.array(dtype=vk.float32)):
    vk.requires(vk.all_in_range(idx, 0, src.shape[0]))
    vk.requires(vk.all_distinct(idx))
    i = vk.tid()
    if i < idx.shape[0]:
        dst[idx[i]] = src[i]

@vk.kernel
def blocky(x: vk.array(dtype=vk.float32)):
    s = vk.shared.array(shape=(32,), dtype=vk.float32)
    s[vk.thread_idx()] = x[vk.tid()]
    vk.sync_threads()
    x[vk.tid()] = s[31 - vk.thread_idx()]

@vk.kernel
def grid(out: vk.array(dtype=vk.int32, ndim=2)):
    i, j = vk.tid()
    out[i, j] = i + j

@vk.kernel
def lengths(v: vk.array(dtype=vk.vec3), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    out[i] = vk.length(v[i])

@vk.kernel(block_dim=64)
def fixed(x: vk.array(dtype=vk.float32)):
    x[vk.tid()] = 1.0
''')


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    path = tmp_path_factory.mktemp("rt") / "rt_kernels.py"
    path.write_text(SRC)
    from verikern.frontend import compile_file
    res = compile_file(str(path))
    out = {k.name: k.mir for k in res.kernels}
    assert all(m is not None for m in out.values()), [k.error for k in res.kernels]
    out["_path"] = path
    return out


def f32(n):
    return np.zeros(n, np.float32)


def test_good_launch_and_prepare(kernels):
    x = np.arange(10, dtype=np.float32)
    out = f32(10)
    k, cfg, arrays, scalars = prepare_launch(kernels["scale"], 10, [x, out, 3, 2.0], block_dim=4)
    assert cfg == LaunchConfig((10,), 4, 3, 10)
    assert arrays["x"] is x and scalars["k"] == 3 and scalars["k"].dtype == np.int32
    launch(kernels["scale"], 10, [x, out, 3, 2.0], block_dim=4)
    np.testing.assert_array_equal(out, x * 2 + 3)


def test_kernel_handle_from_a_module(kernels):
    spec = importlib.util.spec_from_file_location("rt_kernels_mod", kernels["_path"])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x, out = np.ones(5, np.float32), f32(5)
    launch(mod.scale, 5, [x, out, 1, 4.0], block_dim=32)
    assert out.tolist() == [5.0] * 5


@pytest.mark.parametrize("inputs,pattern", [
    (lambda: [f32(4), f32(4), 1], r"scale: takes 4 argument\(s\) \(x, out, k, f\), but inputs has 3"),
    (lambda: [np.zeros(4), f32(4), 1, 1.0], r"argument x has dtype float64.*astype\(numpy.float32\)"),
    (lambda: [np.zeros((4, 1), np.float32), f32(4), 1, 1.0], r"argument x has 2 dimension"),
    (lambda: [[1.0, 2.0], f32(2), 1, 1.0], r"argument x must be a numpy array"),
    (lambda: [f32(4), f32(4), 1.5, 1.0], r"argument k \(int32\) must be an integer"),
    (lambda: [f32(4), f32(4), 2**31, 1.0], r"argument k \(int32\) = 2147483648 is out of range"),
    (lambda: [f32(4), f32(4), 1, "x"], r"argument f \(float32\) must be a number"),
    (lambda: [f32(4), f32(4), 1, 1e300], r"argument f \(float32\) = 1e\+300 is too large for float32"),
])
def test_argument_errors(kernels, inputs, pattern):
    with pytest.raises(LaunchError, match=pattern):
        launch(kernels["scale"], 4, inputs(), block_dim=4)


def test_overlapping_arrays_are_refused(kernels):
    buf = f32(8)
    with pytest.raises(LaunchError, match=r"arguments x and out overlap in memory"):
        launch(kernels["scale"], 4, [buf[:4], buf[2:6], 1, 1.0])
    launch(kernels["scale"], 4, [buf[:4], buf[4:], 1, 1.0])        # disjoint views are fine


def test_requires_false_is_a_contract_error_quoting_the_source(kernels):
    with pytest.raises(ContractError) as e:
        launch(kernels["scale"], 4, [f32(4), f32(4), 0, 1.0])
    text = str(e.value)
    assert "scale" in text and "rt_kernels.py:6:" in text and "vk.requires(k > 0)" in text
    with pytest.raises(ContractError, match=r"rt_kernels.py:7:.*x.shape\[0\] == out.shape\[0\]"):
        launch(kernels["scale"], 4, [f32(4), f32(5), 1, 1.0])


def test_array_contracts(kernels):
    src, dst = np.arange(4, dtype=np.float32), f32(4)
    with pytest.raises(ContractError, match=r"argument idx breaks all_in_range\(0, 4\).*element 2"):
        launch(kernels["gather"], 4, [np.array([0, 1, 4, 2], np.int32), src, dst])
    with pytest.raises(ContractError, match=r"argument idx breaks all_distinct.*elements 1 and 3"):
        launch(kernels["gather"], 4, [np.array([0, 2, 1, 2], np.int32), src, dst])
    assert dst.tolist() == [0.0] * 4            # nothing ran
    launch(kernels["gather"], 4, [np.array([3, 2, 1, 0], np.int32), src, dst])
    assert dst.tolist() == [3.0, 2.0, 1.0, 0.0]


@pytest.mark.parametrize("idx,element", [([0, 1, 3, -1], 3), ([4, 0, 1, 2], 0), ([0, 1, 2, 3], None),
                                         ([3, 3, 0, 0], None)])
def test_all_in_range_admits_exactly_the_arrays_in_range(kernels, idx, element):
    """lo and hi - 1 are in; lo - 1 and hi are out, at whichever position (the
    check first compares the least and the greatest element)."""
    src, dst = np.arange(4, dtype=np.float32), f32(4)
    args = [np.array(idx, np.int32), src, dst]
    if element is None:
        if len(set(idx)) == 4:
            launch(kernels["gather"], 4, args)
            assert dst[idx].tolist() == src.tolist()
        else:
            with pytest.raises(ContractError, match="all_distinct"):   # all_in_range passed
                launch(kernels["gather"], 4, args)
    else:
        with pytest.raises(ContractError, match=rf"all_in_range\(0, 4\).*element {element} "):
            launch(kernels["gather"], 4, args)


@pytest.mark.parametrize("dim,block,pattern", [
    (0, 32, r"every launch dimension must be >= 1"),
    (-4, 32, r"every launch dimension must be >= 1"),
    ("8", 32, r"dim must be a positive int or a tuple"),
    ((1, 1, 1, 1, 1), 32, r"at most 4"),
    ((4, 8), 32, r"must have 1 dimension"),
    (64, 0, r"block_dim must be in 1..1024"),
    (64, 2048, r"block_dim must be in 1..1024"),
    (2**31, 1024, r"below 2\*\*31"),
])
def test_dim_and_block_dim_errors(kernels, dim, block, pattern):
    with pytest.raises(LaunchError, match=pattern):
        launch(kernels["blocky"], dim, [f32(64)], block_dim=block)


def test_block_features_need_whole_blocks(kernels):
    with pytest.raises(LaunchError, match=r"multiple of block_dim \(32\).*pad the launch to 64"):
        launch(kernels["blocky"], 40, [f32(40)], block_dim=32)
    x = np.arange(64, dtype=np.float32)
    launch(kernels["blocky"], 64, [x], block_dim=32)
    np.testing.assert_array_equal(x, np.concatenate([np.arange(31, -1, -1), np.arange(63, 31, -1)]))


def test_fixed_block_dim(kernels):
    with pytest.raises(LaunchError,
                       match=r"declared with @vk.kernel\(block_dim=64\); launch it with block_dim=64, not 32"):
        launch(kernels["fixed"], 64, [f32(64)], block_dim=32)
    x = f32(64)
    launch(kernels["fixed"], 64, [x], block_dim=64)
    assert x.sum() == 64
    y = f32(128)
    launch(kernels["fixed"], 128, [y])            # no block_dim: the kernel's own
    assert y.sum() == 128
    z = f32(512)
    _, cfg, _, _ = prepare_launch(kernels["scale"], 512, [z, f32(512), 1, 1.0], block_dim=None)
    assert cfg.block_dim == 256


def test_two_d_dims_and_non_contiguous_results_are_written_back(kernels):
    with pytest.raises(LaunchError, match=r"must have 2 dimension"):
        launch(kernels["grid"], 12, [np.zeros((3, 4), np.int32)])
    base = np.zeros((4, 6), np.int32)
    view = base[:, ::2]                       # non-contiguous (4, 3) view
    launch(kernels["grid"], (4, 3), [view], block_dim=5)
    np.testing.assert_array_equal(base[:, ::2], np.arange(4)[:, None] + np.arange(3))
    assert np.all(base[:, 1::2] == 0)


def test_vec3_arrays(kernels):
    v = np.array([[3, 4, 0], [1, 2, 2]], np.float32)
    out = f32(2)
    launch(kernels["lengths"], 2, [v, out], block_dim=2)
    np.testing.assert_allclose(out, [5.0, 3.0], rtol=1e-6)
    with pytest.raises(LaunchError, match=r"argument v has 1 dimension.*\(n, 3\)"):
        launch(kernels["lengths"], 2, [np.zeros(6, np.float32), out])
    with pytest.raises(LaunchError, match=r"argument v has shape \(2, 4\)"):
        launch(kernels["lengths"], 2, [np.zeros((2, 4), np.float32), out])


def test_devices(kernels, tmp_path):
    assert {"cpu", "cpu:trace", "cpu:native", "cuda"} <= set(DEVICES)
    with pytest.raises(LaunchError,
                       match=r"unknown device 'tpu'; valid devices: cpu, cpu:native, "
                             r"cpu:native:proved, cpu:trace, cuda, cuda:N"):
        launch(kernels["fixed"], 64, [f32(64)], block_dim=64, device="tpu")
    with pytest.raises(LaunchError, match=r"pass trace_path"):
        launch(kernels["fixed"], 64, [f32(64)], block_dim=64, device="cpu:trace")


def test_not_a_kernel():
    with pytest.raises(LaunchError, match=r"expected a @vk.kernel function"):
        launch(lambda: None, 4, [])


def test_read_only_arrays(kernels):
    x = np.arange(4, dtype=np.float32)
    x.flags.writeable = False
    out = f32(4)
    launch(kernels["scale"], 4, [x, out, 1, 2.0])          # read-only input is fine
    assert out.tolist() == [1.0, 3.0, 5.0, 7.0]
    out.flags.writeable = False
    with pytest.raises(LaunchError, match=r"argument out is a read-only array, but the kernel writes it"):
        launch(kernels["scale"], 4, [x, out, 1, 2.0])


def test_simulate_checks_direct_arguments(kernels):
    from verikern.backends.simulator import simulate
    cfg = LaunchConfig((4,), 4, 1, 4)
    with pytest.raises(LaunchError, match=r"simulate\(\) got no value for out, f"):
        simulate(kernels["scale"], cfg, {"x": f32(4)}, {"k": 1})
    with pytest.raises(LaunchError, match=r"array x must be a 1-D numpy array of float32"):
        simulate(kernels["scale"], cfg, {"x": np.zeros(4), "out": f32(4)}, {"k": 1, "f": 1.0})


def test_cuda_n_passes_the_device_index(kernels, monkeypatch):
    import sys
    import types
    calls = []
    fake = types.ModuleType("fake_cuda_device")

    def run(kernel, launch_cfg, arrays, scalars, device=0):
        calls.append((kernel.name, launch_cfg.dims, device))
    fake.run = run
    monkeypatch.setitem(sys.modules, "fake_cuda_device", fake)
    monkeypatch.setitem(DEVICES, "cuda", ("fake_cuda_device", "run"))
    launch(kernels["fixed"], 64, [f32(64)], device="cuda:3")
    launch(kernels["fixed"], 64, [f32(64)], device="cuda")
    assert calls == [("fixed", (64,), 3), ("fixed", (64,), 0)]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["int8", "int16", "int32", "int64", "uint8", "uint32", "float32"]),
       st.lists(st.integers(-300, 300), min_size=1, max_size=12),
       st.sampled_from([0, -3, 5]), st.sampled_from([0, 1, 127, 128, 129, 256, 2**31, 2**40]),
       st.booleans())
@example("int8", [-128, 0], 0, 129, False)    # -128 is 128 unsigned: 129 is past the type
@example("int8", [-128, 0], 0, 128, False)
def test_the_quick_all_in_range_test_agrees_with_the_test_per_element(dtype, values, low, high,
                                                                      nan):
    """The same answer as `low <= e < high` for every element: a negative
    element seen as unsigned, a bound outside the type, a NaN (never in
    range) included."""
    t = np.dtype(dtype)
    data = np.array(values).astype(t)          # wraps into the type, as an argument would
    if nan and t.kind == "f":
        data[len(data) // 2] = np.nan
    exact = bool(np.all((data >= low) & (data < high)))
    assert all_in_range_quick(data, low, high) == exact
