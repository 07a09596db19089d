"""The PTX of every example (examples/*.py) and corpus kernel (tests/corpus/*.py)
assembles with ptxas for sm_75, sm_80, sm_90 and sm_100, and what ptxas reports
per kernel matches the kernel: shared bytes, barriers, atomics, parameters.

Speed: each arch gets ONE PTX module holding every kernel (compile_ptx_bundle)
and ONE ptxas run; only when that fails is each kernel assembled alone, to
name the culprits."""
import re
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from verikern.backends.cuda.abi import abi_slots, ptx_entry_params
from verikern.backends.ptx import assemble, compile_ptx, compile_ptx_bundle, find_ptxas
from verikern.mir.nodes import Atomic, Barrier, Load

from shared_helpers import ROOT
from tiers import case_class, keys_of_the_run
ARCHS = ("sm_75", "sm_80", "sm_90", "sm_100")
PTXAS = find_ptxas()
needs_ptxas = pytest.mark.skipif(PTXAS is None, reason="ptxas not found (pip install 'verikern[cuda]')")


def _sources():
    from corpus_loader import load_corpus     # the refused cases have no kernel to compile

    return sorted((ROOT / "examples").glob("*.py")) + [c.path for c in load_corpus()]


@pytest.fixture(scope="module")
def compiled(request):
    """(kernels, problems): the MIR kernels the PTX tests take -- every one of
    the examples and of the corpus with -m slow; in the default run the
    corpus's stratified sample, every class of kernel (tests/tiers.py
    `keys_of_the_run`; the whole corpus on four archs took 134 s of a profiled
    default run at load ~9) -- and every file or kernel of them all that
    failed to compile."""
    from corpus_loader import compiled as compiled_file

    kernels, problems = [], []
    corpus = [p for p in _sources() if p.parent.name == "corpus"]
    kept = keys_of_the_run((p.stem for p in corpus), request.config.option.markexpr)
    for path in _sources():
        module = compiled_file(path)
        problems += [f"{path.name}: {e}" for e in module.errors]
        for result in module.kernels:
            if result.unknown:   # `kernel[...]`: no instance to run (its opaque kernel is proof-only)
                continue
            if result.mir is None:
                problems.append(f"{path.name}:{result.name}: {result.error}")
            elif path.parent.name != "corpus" or path.stem in kept:
                kernels.append((f"{path.stem}.{result.name}", result.mir))
    return kernels, problems


@pytest.fixture(scope="module")
def bundles(compiled):
    """arch -> (ptx, entry names, AssembleResult) for one module of all kernels."""
    from verikern.backends.ptx import LibdeviceNotFoundError

    kernels, _ = compiled
    out, pending = {}, {}
    # ptxas for one arch runs (in its own process) while LLVM compiles the next
    with ThreadPoolExecutor(max_workers=2) as pool:
        for arch in ARCHS:
            try:
                ptx, entries = compile_ptx_bundle([k for _, k in kernels], arch)
            except LibdeviceNotFoundError as exc:
                pytest.skip(str(exc))
            out[arch] = (ptx, entries)
            if PTXAS:
                pending[arch] = pool.submit(assemble, ptx, arch)
        return {arch: (ptx, entries, pending[arch].result() if PTXAS else None)
                for arch, (ptx, entries) in out.items()}


def entry_body(ptx: str, entry: str) -> str:
    """The text of `.entry entry` up to the next function."""
    start = re.search(rf"^\.visible \.entry {re.escape(entry)}\(", ptx, re.M)
    assert start, f"no .entry {entry}"
    nxt = re.search(r"^(\.visible |\.weak |\.extern )?\.(entry|func)\b", ptx[start.end():], re.M)
    return ptx[start.start(): start.end() + (nxt.start() if nxt else len(ptx))]


def test_every_example_and_corpus_kernel_compiles(compiled):
    kernels, problems = compiled
    assert not problems, "\n".join(problems)
    # every file with -m slow, else at least the kept case of every class of the corpus
    # (tiers.kept_case_of_each_class) and every example
    files = {name.split(".")[0] for name, _ in kernels}
    corpus = [p.stem for p in _sources() if p.parent.name == "corpus"]
    assert {case_class(k) for k in corpus} == {case_class(k) for k in files & set(corpus)}
    assert {p.stem for p in _sources() if p.parent.name == "examples"} <= files


@needs_ptxas
@pytest.mark.parametrize("arch", ARCHS)
def test_all_kernels_assemble(bundles, compiled, arch):
    ptx, entries, result = bundles[arch]
    assert f".target {arch}" in ptx
    if not result.ok:  # name the kernels whose own PTX ptxas rejects
        failures = []
        for name, kernel in compiled[0]:
            alone = assemble(compile_ptx(kernel, arch), arch)
            if not alone.ok:
                failures.append(f"{name}:\n{alone.log}")
        pytest.fail(f"ptxas rejected {len(failures)} kernels for {arch}:\n" + "\n".join(failures)
                    + f"\n(bundle log:\n{result.log[-2000:]})")
    assert set(result.entries) == set(entries)


def _shared_bytes(kernel, read_only_counted: bool = False) -> int:
    """Bytes of the kernel's shared arrays; with `read_only_counted`, only of
    those it reads (LLVM may delete a shared array that is only written)."""
    read = {i.array.name for _, i in kernel.instructions() if isinstance(i, (Load, Atomic))}
    return sum(int(np.prod(s.shape)) * int(np.prod(s.inner or (1,))) * s.dtype.np_dtype.itemsize
               for s in kernel.shared if not read_only_counted or s.name in read)


@needs_ptxas
@pytest.mark.parametrize("arch", ("sm_80", "sm_100"))
def test_ptxas_resources_match_each_kernel(bundles, compiled, arch):
    ptx, entries, result = bundles[arch]
    assert result.ok, result.log[-2000:]
    for (name, kernel), entry in zip(compiled[0], entries):
        res = result.entries[entry]
        low, high = _shared_bytes(kernel, read_only_counted=True), _shared_bytes(kernel)
        assert low <= res.shared_bytes < high + 16 * max(1, len(kernel.shared)), \
            f"{name}: ptxas reports {res.shared_bytes} B shared, the kernel declares {high} B"
        has_barrier = any(isinstance(i, Barrier) for _, i in kernel.instructions())
        assert (res.barriers > 0) == has_barrier, f"{name}: barriers {res.barriers}"


@pytest.mark.parametrize("arch", ("sm_90",))
def test_golden_instructions_per_kernel(bundles, compiled, arch):
    ptx = bundles[arch][0]
    for (name, kernel), entry in zip(compiled[0], bundles[arch][1]):
        body = entry_body(ptx, entry)
        ins = [i for _, i in kernel.instructions()]
        if any(isinstance(i, Barrier) for i in ins):
            assert re.search(r"\b(bar|barrier)\.sync\b", body), f"{name}: no bar.sync"
        for space in ("global", "shared"):
            if any(isinstance(i, Atomic) and i.array.space == space for i in ins):
                assert re.search(rf"\b(atom|red)(\.\w+)*\.{space}\.", body), f"{name}: no {space} atomic"
        read = {i.array.name for i in ins if isinstance(i, (Load, Atomic))}
        for shared in (s for s in kernel.shared if s.name in read):
            # (LLVM may split a small shared array into scalars: name_$_0, ...)
            assert re.search(rf"\.shared \.align \d+ \.[a-z]\d+ "
                             rf"{re.escape(entry)}__shared__{shared.name}(\[|_\$_\d+|;)", ptx), \
                f"{name}: no .shared declaration for {shared.name}"


def test_entry_parameters_fit_the_runtime_abi(bundles, compiled):
    """backends/cuda packs every kernel's parameters: count and sizes agree."""
    ptx = bundles["sm_80"][0]
    sizes = {"pointer": 8, "shape": 4, "launch_dim": 4, "launch_size": 4}
    for (name, kernel), entry in zip(compiled[0], bundles["sm_80"][1]):
        params = ptx_entry_params(ptx, entry)
        slots = abi_slots(kernel)
        assert len(params) == len(slots), name
        for slot, param in zip(slots, params):
            want = sizes.get(slot.kind) or np.dtype(slot.dtype).itemsize
            assert param.size == want, f"{name}: {slot} is {param.size} bytes in the PTX"
