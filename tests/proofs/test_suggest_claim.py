"""A suggested contract is a claim: `proved_under_suggestion` is the verdict
of the kernel re-proved with the contract pasted into its source
(verikern/app/suggestion.py), whole; the contract comes with an example
launch that `vk.check_launch` and `vk.launch` accept; a contract that admits
no launch is never suggested."""
from __future__ import annotations

import functools
import importlib.util
import sys

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_source
from verikern.app.suggestion import pasted_kernel
from verikern.proofs import pipeline
from verikern.proofs.deciding.suggest import Suggestion
from verikern.proofs.obligations import KernelStatus
from verikern.proofs.reporting.paste import pasted, suggestion_inserts

# a @wp.func inlined twice: its load has two MIR sites at one source position
TWICE = '''import warp as wp


@wp.func
def load(a: wp.array(dtype=float), i: int):
    return a[i]


@wp.kernel
def add_loaded(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = load(x, i) + load(y, i)
'''


def _prove(source, name="k.py", **options):
    (report,) = prove_source(source, name, suggest=True, **options)
    return report


def _repaste(report, source):
    """The report's suggestion pasted by hand and proved again: the independent check."""
    text = pasted(source, suggestion_inserts(source, report.line, report.suggested_decorators))
    (again,) = prove_source(text, "pasted.py")
    return again, text


def test_a_func_inlined_twice_gets_a_contract_for_both_copies():
    report = _prove(TWICE)
    assert report.status is KernelStatus.FAILED
    assert any("y.shape[0]" in r for r in report.suggested_requires), report.suggested_requires
    assert report.proved_under_suggestion is True
    again, _ = _repaste(report, TWICE)
    assert again.status is KernelStatus.PROVED


def _suggesting(monkeypatch, *requires):
    """The search replaced by one that proposes exactly `requires` and
    claims they prove everything: only the re-proof may say so."""
    decorator = f"@vk.requires(lambda x, y, out: {' and '.join(requires)})"
    monkeypatch.setattr(pipeline, "suggest_contract",
                        lambda *a, **k: Suggestion(tuple(requires), (decorator,), True, 0))


def test_a_contract_that_leaves_the_second_copy_failing_is_not_proved(monkeypatch):
    # the old answer: only the first inlined copy's array covered
    _suggesting(monkeypatch, "vk.launch_dim() <= x.shape[0]", "vk.launch_dim() <= out.shape[0]")
    report = _prove(TWICE)
    assert report.suggested_requires and report.proved_under_suggestion is False
    again, _ = _repaste(report, TWICE)
    assert again.status is KernelStatus.FAILED
    failed = [ob for ob in again.obligations if ob.status.value == "failed"]
    # y's copy of the load (line 6 of TWICE, 7 once `import verikern as vk` is pasted)
    assert [(ob.loc.line, ob.loc.col) for ob in failed] == [(7, 12)]


def test_a_contract_that_admits_no_launch_is_never_suggested(monkeypatch):
    _suggesting(monkeypatch, "vk.launch_dim() <= x.shape[0]", "y.shape[0] < 0")
    report = _prove(TWICE)
    assert report.status is KernelStatus.FAILED
    assert report.suggested_requires == () and report.proved_under_suggestion is None
    assert report.suggested_example is None and "suggested_requires" not in report.to_json()


def test_a_pasted_contract_that_does_not_compile_proves_nothing(monkeypatch):
    _suggesting(monkeypatch, "vk.launch_dim() <= x.shape[0]", "vk.launch_dim() <= out.shape[0]",
                "vk.launch_dim() <= y.shape[0]")
    report = _prove(TWICE)
    assert report.proved_under_suggestion is True
    broken = report.__class__(**{**report.__dict__, "suggested_decorators": ("@vk.requires(lambda",)})
    assert pasted_kernel(broken, TWICE) is None


SAXPY_WARP = '''import warp as wp


@wp.kernel
def saxpy(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32), a: wp.float32):
    i = wp.tid()
    y[i] = a * x[i] + y[i]
'''


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _inputs(kernel_params, example, rng):
    """Arguments for the example launch: arrays of its shapes (random
    contents), its scalar values, in parameter order."""
    out = []
    for name, dtype in kernel_params:
        if name in example.shapes:
            out.append(rng.standard_normal(example.shapes[name]).astype(dtype))
        else:
            out.append(dtype(example.scalars[name]))
    return out


@functools.lru_cache(maxsize=None)
def _saxpy_report():
    """SAXPY_WARP proved with its suggestion: one proof for both cases of the test
    below (a frozen report, which they only read)."""
    return _prove(SAXPY_WARP, "saxpy_warp.py")


def _pasted_text(report, source) -> str:
    """The report's suggestion pasted by hand (not proved again: the example's checks
    below run the pasted file, they do not read its verdict)."""
    return pasted(source, suggestion_inserts(source, report.line, report.suggested_decorators))


@pytest.mark.parametrize("block_dim_given", [True, False])
def test_the_example_launch_runs_under_check_launch_and_launch(tmp_path, block_dim_given):
    report = _saxpy_report()
    assert report.proved_under_suggestion is True
    example = report.suggested_example
    assert example is not None and report.to_json()["suggested_example"] == example.to_json()
    n = example.dims[0]
    assert example.shapes["x"][0] >= n and example.shapes["y"][0] >= n
    text = _pasted_text(report, SAXPY_WARP)
    path = tmp_path / f"saxpy_pasted_{block_dim_given}.py"
    path.write_text(text)
    module = _load(path, path.stem)
    rng = np.random.default_rng(0)
    x, y, a = _inputs([("x", np.float32), ("y", np.float32), ("a", np.float32)], example, rng)
    a = np.float32(1.5)
    block = example.block_dim if block_dim_given else None
    vk.check_launch(module.saxpy, n, [x, y, a], block_dim=block)
    expected = y.copy()
    expected[:n] = a * x[:n] + y[:n]
    vk.launch(module.saxpy, n, inputs=[x, y, a], block_dim=block, device="cpu")
    np.testing.assert_allclose(y, expected, rtol=1e-6)
    # the kernel without the contract accepts the same launch: the contract only removes launches
    original = tmp_path / f"saxpy_plain_{block_dim_given}.py"
    original.write_text(SAXPY_WARP)
    vk.check_launch(_load(original, original.stem).saxpy, n, [x, y, a], block_dim=block)


def test_the_text_report_shows_the_example(tmp_path):
    from helpers_report import cli

    path = tmp_path / "saxpy_warp.py"
    path.write_text(SAXPY_WARP)
    code, out, _ = cli("prove", path, "--no-cache")
    assert code == 1
    (line,) = [x for x in out.splitlines() if x.startswith("  for example: ")]
    assert line.startswith("  for example: dim=") and "x.shape=(" in line and "a=" in line


FACTORY = '''import warp as wp


def make(radius: int):
    width = 2 * radius + 1

    @wp.kernel
    def centred(x: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
        i = wp.tid()
        out[i] = x[i + width - 2 * radius - 1]

    return centred
'''


def test_a_factory_kernels_example_launch_runs_with_its_captured_values(tmp_path):
    """The example names the captured values too (`captured radius=..,
    width=..`); they satisfy the relation the factory computes, so the
    factory called with that radius launches the example."""
    report = _prove(FACTORY, "centred.py")
    assert report.proved_under_suggestion is True, report.suggested_requires
    example = report.suggested_example
    radius, width = example.scalars["@radius"], example.scalars["@width"]
    assert width == 2 * radius + 1
    assert "captured radius=" in example.text()
    text = _pasted_text(report, FACTORY)
    path = tmp_path / "centred_pasted.py"
    path.write_text(text)
    kernel = _load(path, path.stem).make(radius)
    n = example.dims[0]
    x = np.arange(example.shapes["x"][0], dtype=np.float32)
    out = np.zeros(example.shapes["out"][0], np.float32)
    vk.check_launch(kernel, n, [x, out], block_dim=example.block_dim)
    vk.launch(kernel, n, inputs=[x, out], block_dim=example.block_dim, device="cpu")
    np.testing.assert_array_equal(out[:n], x[:n])
