"""The corpus header parser (tests/corpus_loader.py): `# bug:` sites and
`# witness` launches are read exactly, and malformed headers are refused."""
from __future__ import annotations

import numpy as np
import pytest

from corpus_loader import BugSite, CorpusHeaderError, compiled, parse_header
from verikern.mir.printer import format_kernel

BODY = "import verikern as vk\n"


def header(tmp_path, *lines):
    path = tmp_path / "k.py"
    path.write_text("\n".join(lines) + "\n" + BODY)
    return path


def test_bug_sites_and_witnesses_are_read_exactly(tmp_path):
    case = parse_header(header(
        tmp_path, "# expect: failed bounds,race", "# A kernel.", "# bug: 12:18 bounds",
        "# bug: 19:31 race 19:13",
        "# witness bounds: dim=(2, 1), block_dim=2, a=zeros(float32, (1, 2)), "
        "idx=array(int32, [-1, 4]), n=-5, s=2.5"))
    assert case.bugs == (BugSite("bounds", 12, 18), BugSite("race", 19, 31, (19, 13)))
    assert case.bugs[1].pair() == {(19, 31), (19, 13)}
    (w,) = case.witnesses
    assert (w.kind, w.dims, w.dim, w.block_dim) == ("bounds", (2, 1), (2, 1), 2)
    values = w.inputs()
    assert list(values) == ["a", "idx", "n", "s"]
    assert values["a"].dtype == np.float32 and values["a"].shape == (1, 2) and not values["a"].any()
    np.testing.assert_array_equal(values["idx"], np.array([-1, 4], np.int32))
    assert values["idx"].dtype == np.int32
    assert values["n"] == -5 and values["s"] == 2.5
    values["a"][0, 0] = 1.0
    assert not w.inputs()["a"].any(), "every call makes fresh arrays"


def test_a_1d_witness_launches_with_an_int_dim(tmp_path):
    case = parse_header(header(tmp_path, "# expect: failed assert", "# A kernel.", "# bug: 8:5 assert",
                               "# witness assert: dim=1, block_dim=1, out=array(int32, [[1, 2], [3, 4]])"))
    (w,) = case.witnesses
    assert w.dim == 1 and w.inputs()["out"].shape == (2, 2)


def test_no_witness_needs_a_reason_and_is_recorded(tmp_path):
    case = parse_header(header(tmp_path, "# expect: failed assert", "# A kernel.", "# bug: 8:5 assert",
                               "# witness: none (needs 2**31 threads)"))
    assert case.witnesses == () and case.no_witness == "needs 2**31 threads"


@pytest.mark.parametrize("lines,message", [
    (["# expect: failed bounds", "# A kernel.", "# witness: none (x)"], "needs a '# bug: LINE:COL KIND'"),
    (["# expect: failed bounds", "# bug: 3:4 race 5:6", "# witness: none (x)"], "needs a '# bug: LINE:COL KIND'"),
    (["# expect: failed bounds", "# bug: 3:4 bounds"], "or one '# witness: none"),
    (["# expect: failed race", "# bug: 3:4 race", "# witness: none (x)"], "names both accesses"),
    (["# expect: failed bounds", "# bug: 3:4 bounds 5:6", "# witness: none (x)"], "names both accesses"),
    (["# expect: failed bounds", "# bug: 3 bounds", "# witness: none (x)"], "LINE:COL"),
    (["# expect: failed bounds", "# bug: 0:4 bounds", "# witness: none (x)"], "LINE:COL"),
    (["# expect: failed bounds", "# bug: 3:4 oob", "# witness: none (x)"], "KIND one of"),
    (["# expect: proved", "# bug: 3:4 bounds"], "a correct kernel"),
    (["# expect: failed bounds", "# bug: 3:4 bounds", "# witness race: dim=1, block_dim=1"], "do not fail"),
    (["# expect: failed bounds", "# bug: 3:4 bounds", "# witness bounds: dim=1"], "needs dim= and block_dim="),
    (["# expect: failed bounds", "# bug: 3:4 bounds", "# witness bounds: dim=1, block_dim=1, x=__import__('os')"],
     "an array is zeros"),
    (["# expect: failed bounds", "# bug: 3:4 bounds", "# witness bounds: dim=1, block_dim=1, x=zeros(object, 1)"],
     "an array is zeros"),
    (["# expect: failed bounds", "# bug: 3:4 bounds", "# witness bounds: dim=1, block_dim=1, n=len([1])"],
     "an array is zeros"),
    (["# expect: failed bounds", "# bug: 3:4 bounds", "# witness bounds: dim=1, block_dim=1, n='a'"],
     "must be an int, a float or a bool"),
    (["# expect: failed bounds", "# bug: 3:4 bounds", "# witness bounds: dim=0, block_dim=1"], "positive"),
    (["# expect: refused", "# A file."], "has '# refused: LINE:COL WORD'"),
    (["# expect: proved", "# refused: 3:4 rebind"], "has '# refused: LINE:COL WORD'"),
    (["# expect: refused", "# refused: 3:4"], "wants LINE:COL WORD"),
    (["# expect: refused", "# refused: 3:4 rebind", "# bug: 3:4 bounds"], "no '# bug:'"),
    (["# expect: proved", "# kernel:"], "names a kernel"),
])
def test_malformed_headers_are_refused_with_the_file_and_line(tmp_path, lines, message):
    path = header(tmp_path, *lines)
    with pytest.raises(CorpusHeaderError, match=message) as info:
        parse_header(path)
    assert str(path) in str(info.value)


def test_kernel_and_refused_lines_are_read(tmp_path):
    case = parse_header(header(tmp_path, "# expect: proved", "# A generic kernel.", "# kernel: k[int8]"))
    assert case.kernel == "k[int8]" and case.refusals == ()
    case = parse_header(header(tmp_path, "# expect: refused", "# A file.", "# refused: 9:12 rebind",
                               "# refused: 10:3 global"))
    assert case.refusals == ((9, 12, "rebind"), (10, 3, "global")) and case.kernel is None


def test_refused_cases_are_kept_apart_from_the_cases_every_layer_runs():
    from corpus_loader import load_corpus, load_refused

    refused = load_refused()
    assert len(refused) >= 3 and all(c.name.startswith("refused_") for c in refused)
    assert not {c.name for c in refused} & {c.name for c in load_corpus()}
    assert all(len([ln for ln in c.path.read_text().splitlines() if ln.startswith("#")][1]) > 30
               for c in refused), "a line saying what the file does"


def test_a_compile_is_shared_until_the_file_or_a_file_beside_it_changes(tmp_path):
    """`compiled` (the corpus sweeps' compile, once per process): the same
    kernels while nothing changed, in fresh lists; a new compile when the
    file or a sibling module it imports a constant from changes."""
    (tmp_path / "consts.py").write_text("N = 7\n")
    kernel = tmp_path / "k.py"
    kernel.write_text("import verikern as vk\nfrom consts import N\n\n\n@vk.kernel\n"
                      "def k(x: vk.array(dtype=vk.int32)):\n    x[vk.tid()] = N\n")
    first, again = compiled(kernel), compiled(kernel)
    assert again.kernels[0] is first.kernels[0]
    again.kernels.clear()                          # a test's own list: the next caller's is whole
    assert compiled(kernel).kernels[0] is first.kernels[0]
    assert "7:int32" in format_kernel(first.kernels[0].mir)
    (tmp_path / "consts.py").write_text("N = 11\n")
    assert "11:int32" in format_kernel(compiled(kernel).kernels[0].mir)
    kernel.write_text(kernel.read_text().replace("= N", "= N + 1"))
    assert "12:int32" in format_kernel(compiled(kernel).kernels[0].mir)
