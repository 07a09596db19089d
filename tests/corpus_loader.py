"""The shared corpus of kernels with expected verdicts (tests/corpus/*.py).

Every layer's tests reuse it: the prover checks the verdicts, the simulator and
the LLVM backends compile and run the same kernels. Header format (the comment
lines at the top of each file, before any code):

    # expect: proved
    # expect: failed race,bounds        (these kinds fail; every other is proved)
    # expect: refused                   (the frontend must refuse it: see below)
    # prove-args: --block-dim 256 --dim 1024   (optional)
    # bug: 11:18 bounds                 (buggy kernels: a buggy site, one line each)
    # bug: 19:31 race 19:13             (races: both accesses of the racing pair, any order)
    # witness bounds: dim=1, block_dim=1, x=zeros(float32, 1), idx=array(int32, [-1]), n=2
    # witness: none (needs 2**30 threads)
    # kernel: gather_doubled[int8]      (optional: the kernel the one-kernel layers run)
    # no-type-oblivious-proof: division  (a generic kernel whose `kernel[...]` has no opaque
                                          kernel: text its refusal contains; no MIR to run)
    # refused: 9:12 rebind              (refused cases: where the located error points)

`# bug: LINE:COL KIND` names a site exactly as the prover reports a failed
obligation of KIND there (1-based line, 1-based column of the access, barrier,
assert, invariant or division). Invariant: a buggy case has at least one bug
line for each of its failing kinds and no bug line of another kind; a race bug
names both accesses; a correct case has none.

`# witness KIND: ...` is a launch that shows the KIND bug on the CPU simulator,
written as comma-separated `key=value` pairs: `dim` (an int or a tuple of
ints), `block_dim` (an int), then one entry per kernel parameter (a name a
kernel factory captures is written bare: `width=3` for `@width`; a field of a
struct parameter with `__` for the dot: `grid__n=1` for `grid.n`). A value is a
literal (an int, float or bool scalar) or an array: `zeros(DTYPE, SHAPE)` or
`array(DTYPE, [values...])` (nested lists for several dimensions), DTYPE a
numpy dtype name (int8..uint64, float16..float64, bool). It is parsed with the
`ast` module and literal evaluation only, never executed. A buggy case has at
least one witness of a failing kind, or exactly one `# witness: none (reason)`
when no launch the simulator can run shows the bug.

`# kernel: NAME` names the kernel a layer that runs one kernel per file takes
(`corpus_kernel`); without it the file compiles to exactly one kernel. A
generic kernel compiles to one instance per typing (`name[int8]`, ...) and
names the instance its witness launches.

`# expect: refused` cases are files the frontend must refuse with a located
error, because it cannot model them as Python and Warp run them (a
module-level name the module rebinds, docs/LANGUAGE.md section 1): proving
them would claim more than was proved. Each has one or more `# refused:
LINE:COL WORD` lines, the error's site and a word its message contains. They
are not in `load_corpus()` (no layer can run them); `load_refused()` lists
them.
"""
from __future__ import annotations

import ast
import os
import re
import shlex
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

import run_shared

CORPUS_DIR = Path(__file__).parent / "corpus"
KINDS = frozenset({"bounds", "race", "divergence", "assert", "invariant", "div-zero", "uninit",
                   "unassigned"})
DTYPES = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                    "float16", "float32", "float64", "bool"})
_SITE = re.compile(r"^(\d+):(\d+)$")


class CorpusHeaderError(ValueError):
    """A corpus header line that does not follow the format above (message: file:line: what)."""


@dataclass(frozen=True)
class BugSite:
    """One buggy site: a failed obligation of `kind` must be reported at
    (line, col); for a race, `other` is the other access of the pair."""

    kind: str
    line: int
    col: int
    other: tuple[int, int] | None = None

    @property
    def site(self) -> tuple[int, int]:
        return (self.line, self.col)

    def pair(self) -> frozenset[tuple[int, int]]:
        """The race's two sites, unordered (one element when both are the same)."""
        return frozenset({self.site, self.other or self.site})

    def __str__(self) -> str:
        return f"{self.line}:{self.col} {self.kind}" + (f" {self.other[0]}:{self.other[1]}" if self.other else "")


@dataclass(frozen=True)
class ArraySpec:
    """An input array of a witness: zeros of `shape`, or exactly `values`."""

    dtype: str
    shape: tuple[int, ...]
    values: tuple | None = None

    def make(self) -> np.ndarray:
        if self.values is None:
            return np.zeros(self.shape, dtype=self.dtype)
        return np.array(self.values, dtype=self.dtype)


@dataclass(frozen=True)
class Witness:
    """A launch that shows a `kind` bug on the simulator. `args` are the
    kernel's inputs by parameter name: ArraySpec or a scalar literal."""

    kind: str
    dims: tuple[int, ...]
    block_dim: int
    args: tuple[tuple[str, Any], ...]

    @property
    def dim(self) -> int | tuple[int, ...]:
        """The dims as `vk.launch` takes them (an int for a 1-D launch)."""
        return self.dims[0] if len(self.dims) == 1 else self.dims

    def inputs(self) -> dict[str, Any]:
        """Fresh input values by parameter name (new arrays on every call)."""
        return {k: (v.make() if isinstance(v, ArraySpec) else v) for k, v in self.args}

    def launch_inputs(self, kernel) -> list:
        """The positional inputs `vk.launch` takes for MIR `kernel`: a name
        a kernel factory captures (MIR parameter `@width`) is written bare in
        the witness (`width=...`)."""
        values = self.inputs()
        return [values[p.name] if p.name in values else values[_witness_key(p.name)]
                for p in kernel.params]


def _witness_key(param: str) -> str:
    """How a witness writes a MIR parameter that is not a Python name: a
    captured `@width` bare (`width`), a struct field `grid.n` as `grid__n`."""
    return param.lstrip("@").replace(".", "__")


@dataclass(frozen=True)
class CorpusCase:
    path: Path
    expect_status: str                 # "proved", "failed" or "refused"
    failing_kinds: frozenset[str]      # empty when proved
    prove_args: tuple[str, ...]
    bugs: tuple[BugSite, ...] = ()
    witnesses: tuple[Witness, ...] = ()
    no_witness: str | None = None      # why no simulator launch shows the bug
    kernel: str | None = None          # `# kernel:`: the one kernel the one-kernel layers run
    refusals: tuple[tuple[int, int, str], ...] = ()   # `# refused:` (line, col, word)
    no_opaque: str | None = None       # `# no-type-oblivious-proof:` text of the refusal

    @property
    def name(self) -> str:
        return self.path.stem

    def option(self, flag: str) -> str | None:
        args = list(self.prove_args)
        if flag in args:
            return args[args.index(flag) + 1]
        return None

    def bugs_of(self, kind: str) -> tuple[BugSite, ...]:
        return tuple(b for b in self.bugs if b.kind == kind)


def _site(text: str, where: str) -> tuple[int, int]:
    m = _SITE.match(text)
    if not m or int(m.group(1)) < 1 or int(m.group(2)) < 1:
        raise CorpusHeaderError(f"{where}: expected LINE:COL (1-based), got {text!r}")
    return int(m.group(1)), int(m.group(2))


def parse_bug(text: str, where: str) -> BugSite:
    """`LINE:COL KIND` or, for a race, `LINE:COL race LINE:COL`."""
    words = text.split()
    if len(words) not in (2, 3) or words[1] not in KINDS:
        raise CorpusHeaderError(f"{where}: '# bug:' wants LINE:COL KIND [LINE:COL], KIND one of "
                                f"{', '.join(sorted(KINDS))}; got {text!r}")
    line, col = _site(words[0], where)
    kind = words[1]
    other = _site(words[2], where) if len(words) == 3 else None
    if (kind == "race") != (other is not None):
        raise CorpusHeaderError(f"{where}: a race bug names both accesses (LINE:COL race LINE:COL), "
                                f"other kinds one site; got {text!r}")
    return BugSite(kind, line, col, other)


def _literal(node: ast.AST, where: str) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError) as exc:
        raise CorpusHeaderError(f"{where}: not a literal: {ast.unparse(node)!r} ({exc})") from None


def _ints(value: Any, what: str, where: str) -> tuple[int, ...]:
    items = value if isinstance(value, tuple) else (value,)
    if not items or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in items):
        raise CorpusHeaderError(f"{where}: {what} must be a non-negative int or a tuple of them, got {value!r}")
    return tuple(items)


def _array(call: ast.Call, where: str) -> ArraySpec:
    fn = call.func.id if isinstance(call.func, ast.Name) else None
    if fn not in ("zeros", "array") or len(call.args) != 2 or call.keywords \
            or not isinstance(call.args[0], ast.Name) or call.args[0].id not in DTYPES:
        raise CorpusHeaderError(f"{where}: an array is zeros(DTYPE, SHAPE) or array(DTYPE, [values]), "
                                f"DTYPE one of {', '.join(sorted(DTYPES))}; got {ast.unparse(call)!r}")
    dtype = call.args[0].id
    if fn == "zeros":
        return ArraySpec(dtype, _ints(_literal(call.args[1], where), "a shape", where))
    values = _literal(call.args[1], where)
    if not isinstance(values, list):
        raise CorpusHeaderError(f"{where}: array(...) takes a list of values, got {values!r}")
    arr = np.array(values, dtype=dtype)
    return ArraySpec(dtype, tuple(arr.shape), _frozen(arr.tolist()))


def _frozen(values: Any) -> Any:
    """Nested lists as nested tuples (a frozen witness holds no mutable values)."""
    return tuple(_frozen(v) for v in values) if isinstance(values, list) else values


def parse_witness(kind: str, text: str, where: str) -> Witness:
    """`dim=..., block_dim=..., name=value, ...` (see the module docstring)."""
    try:
        call = ast.parse(f"witness({text})", mode="eval").body
    except SyntaxError as exc:
        raise CorpusHeaderError(f"{where}: cannot parse the witness {text!r}: {exc.msg}") from None
    if not isinstance(call, ast.Call) or call.args or any(k.arg is None for k in call.keywords):
        raise CorpusHeaderError(f"{where}: a witness is comma-separated name=value pairs, got {text!r}")
    values: dict[str, Any] = {}
    for kw in call.keywords:
        if isinstance(kw.value, ast.Call):
            values[kw.arg] = _array(kw.value, where)
        else:
            value = _literal(kw.value, where)
            if kw.arg not in ("dim", "block_dim") and not isinstance(value, (int, float)):   # bool too
                raise CorpusHeaderError(f"{where}: scalar {kw.arg} must be an int, a float or a bool, got {value!r}")
            values[kw.arg] = value
    if "dim" not in values or "block_dim" not in values:
        raise CorpusHeaderError(f"{where}: a witness needs dim= and block_dim=, got {text!r}")
    dims = _ints(values.pop("dim"), "dim", where)
    block = _ints(values.pop("block_dim"), "block_dim", where)
    if len(block) != 1 or block[0] < 1 or min(dims) < 1:
        raise CorpusHeaderError(f"{where}: dims and block_dim must be positive, got {dims}, {block}")
    return Witness(kind, dims, block[0], tuple(values.items()))


def _check(path: Path, status, kinds, bugs, witnesses, no_witness, refusals) -> None:
    if status not in ("proved", "failed", "refused"):
        raise CorpusHeaderError(f"{path}:1: missing or bad '# expect:' header")
    if (status == "refused") != bool(refusals):
        raise CorpusHeaderError(f"{path}: a refused case, and only one, has '# refused: LINE:COL WORD' lines")
    if status == "refused":
        if bugs or witnesses or no_witness:
            raise CorpusHeaderError(f"{path}: a refused case has no '# bug:' or '# witness' lines")
        return
    if status == "proved":
        if bugs or witnesses or no_witness:
            raise CorpusHeaderError(f"{path}: a correct kernel has no '# bug:' or '# witness' lines")
        return
    if not kinds <= KINDS:
        raise CorpusHeaderError(f"{path}:1: unknown kinds {sorted(kinds - KINDS)}")
    named = {b.kind for b in bugs}
    if named != kinds:
        raise CorpusHeaderError(
            f"{path}: every failing kind needs a '# bug: LINE:COL KIND' line and no other kind may have one "
            f"(expected {sorted(kinds)}, bug lines name {sorted(named)})")
    stray = [w.kind for w in witnesses if w.kind not in kinds]
    if stray:
        raise CorpusHeaderError(f"{path}: witnesses for kinds that do not fail: {stray}")
    if bool(witnesses) == bool(no_witness):
        raise CorpusHeaderError(f"{path}: a buggy kernel has '# witness KIND: ...' lines, or one "
                                f"'# witness: none (reason)'")


def parse_header(path: Path) -> CorpusCase:
    status, kinds, args = None, frozenset(), ()
    bugs: list[BugSite] = []
    witnesses: list[Witness] = []
    no_witness = None
    kernel = None
    no_opaque = None
    refusals: list[tuple[int, int, str]] = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.startswith("#"):
            break
        where = f"{path}:{number}"
        body = line[1:].strip()
        if body.startswith("expect:"):
            words = body[len("expect:"):].split(None, 1)
            status = words[0] if words else None
            if status == "failed":
                if len(words) < 2:
                    raise CorpusHeaderError(f"{where}: '# expect: failed' needs the failing kinds")
                kinds = frozenset(k.strip() for k in words[1].split(","))
        elif body.startswith("prove-args:"):
            args = tuple(shlex.split(body[len("prove-args:"):]))
        elif body.startswith("bug:"):
            bugs.append(parse_bug(body[len("bug:"):].strip(), where))
        elif body.startswith("kernel:"):
            kernel = body[len("kernel:"):].strip()
            if not kernel:
                raise CorpusHeaderError(f"{where}: '# kernel:' names a kernel")
        elif body.startswith("no-type-oblivious-proof:"):
            no_opaque = body[len("no-type-oblivious-proof:"):].strip()
            if not no_opaque:
                raise CorpusHeaderError(f"{where}: '# no-type-oblivious-proof:' wants text of the refusal")
        elif body.startswith("refused:"):
            words = body[len("refused:"):].split()
            if len(words) != 2:
                raise CorpusHeaderError(f"{where}: '# refused:' wants LINE:COL WORD, got {body!r}")
            refusals.append((*_site(words[0], where), words[1]))
        elif body.startswith("witness"):
            head, sep, rest = body.partition(":")
            words = head.split()
            if not sep or words[0] != "witness" or len(words) > 2:
                raise CorpusHeaderError(f"{where}: expected '# witness KIND: ...' or '# witness: none (reason)'")
            if len(words) == 1:
                if not rest.strip().startswith("none") or no_witness is not None:
                    raise CorpusHeaderError(f"{where}: '# witness:' without a kind must say 'none (reason)', once")
                no_witness = rest.strip()[len("none"):].strip(" ()") or "no reason given"
            elif words[1] not in KINDS:
                raise CorpusHeaderError(f"{where}: unknown witness kind {words[1]!r}")
            else:
                witnesses.append(parse_witness(words[1], rest.strip(), where))
    _check(path, status, kinds, bugs, witnesses, no_witness, refusals)
    return CorpusCase(path, status, kinds, args, tuple(bugs), tuple(witnesses), no_witness,
                      kernel, tuple(refusals), no_opaque)


def _all_cases() -> list[CorpusCase]:
    return [parse_header(p) for p in sorted(CORPUS_DIR.glob("*.py"))]


def load_corpus() -> list[CorpusCase]:
    """The proved and failed cases: the ones every layer runs."""
    return [c for c in _all_cases() if c.expect_status != "refused"]


def load_refused() -> list[CorpusCase]:
    """The cases the frontend must refuse (`# expect: refused`)."""
    return [c for c in _all_cases() if c.expect_status == "refused"]


#: compile_file's results in this process, by `_compile_key`
_COMPILED: dict[tuple, Any] = {}


def _compile_key(path) -> tuple:
    """The path as given (it names the file in every location), the file's
    bytes, and the name, size and modification time of every Python file
    beside it: the frontend reads the file's folder too (its project: the
    sibling modules a name may be imported from or rebound in)."""
    folder = Path(path).parent
    with os.scandir(folder) as entries:
        siblings = sorted((e.name, e.stat().st_size, e.stat().st_mtime_ns)
                          for e in entries if e.name.endswith(".py"))
    return str(path), Path(path).read_bytes(), tuple(siblings)


def compiled(path):
    """`compile_file(path)` (a ModuleResult), compiled once per test run for
    each `_compile_key` and the package's code (`run_shared`: one xdist worker
    compiles, the others load its pickle; a whole corpus compile is about 7 CPU
    s), and kept per process: the layers that sweep the corpus and the
    examples (simulator, native, PTX, C, trace, headers, lowering) each
    compiled every file again, a whole corpus compile per test file.

    Invariant: the result is a function of the key (the frontend depends on
    the file, its folder's files and its own code, nothing else); each call
    returns fresh lists and dict around the shared frozen KernelResults, so a
    test that changes its list cannot change another's."""
    from verikern.app.cache import code_hash
    from verikern.frontend import compile_file

    key = _compile_key(path)
    result = _COMPILED.get(key)
    if result is None:
        result = _COMPILED[key] = run_shared.shared("corpus-compiled", (code_hash(),) + key,
                                                    lambda: compile_file(path))
    return replace(result, kernels=list(result.kernels), errors=list(result.errors),
                   funcs=dict(result.funcs))


def corpus_kernel(case: CorpusCase):
    """The compiled kernel (a KernelResult, MIR in `.mir`) the one-kernel
    layers run: the `# kernel:` one, else the file's only kernel. Fails the
    calling test with the frontend's message if it does not compile."""
    result = compiled(str(case.path))
    assert not result.errors, [e.render() for e in result.errors]
    names = [k.name for k in result.kernels]
    if case.kernel is None:
        assert len(names) == 1, f"{case.name}: {len(names)} kernels {names}: name one with '# kernel:'"
        kr = result.kernels[0]
    else:
        assert case.kernel in names, f"{case.name}: '# kernel: {case.kernel}' is not among {names}"
        kr = result.kernel(case.kernel)
    assert kr.error is None and kr.mir is not None, f"the frontend rejects {case.name}: {kr.error}"
    return kr


def generated_input_sizes(name: str, rows: int) -> dict | None:
    """Array shapes for a corpus kernel whose contracts the input generator would meet
    with huge arrays (a row length that is a multiple of another array's dimension),
    `rows` rows each (the launch size); None for every other kernel: the generator's own."""
    if name == "ok_stride_row_int64_length":
        return {"grad": (rows, 3, 4), "contribs": (rows, 36), "out": (rows, 3)}
    return None
