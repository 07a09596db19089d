"""The shared corpus of kernels with expected verdicts (tests/corpus/*.py).

Every layer's tests reuse it: the prover checks the verdicts, the simulator and
the LLVM backends compile and run the same kernels. Header format (first lines
of each file, before any code):

    # expect: proved
    # expect: failed race,bounds        (these kinds fail; every other is proved)
    # prove-args: --block-dim 256 --dim 1024   (optional)
"""
from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

CORPUS_DIR = Path(__file__).parent / "corpus"


@dataclass(frozen=True)
class CorpusCase:
    path: Path
    expect_status: str                 # "proved" or "failed"
    failing_kinds: frozenset[str]      # empty when proved
    prove_args: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.path.stem

    def option(self, flag: str) -> str | None:
        args = list(self.prove_args)
        if flag in args:
            return args[args.index(flag) + 1]
        return None


def parse_header(path: Path) -> CorpusCase:
    status, kinds, args = None, frozenset(), ()
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        body = line[1:].strip()
        if body.startswith("expect:"):
            words = body[len("expect:"):].split(None, 1)
            status = words[0]
            if status == "failed":
                kinds = frozenset(k.strip() for k in words[1].split(","))
        elif body.startswith("prove-args:"):
            args = tuple(shlex.split(body[len("prove-args:"):]))
    if status not in ("proved", "failed"):
        raise ValueError(f"{path}: missing or bad '# expect:' header")
    return CorpusCase(path, status, kinds, args)


def load_corpus() -> list[CorpusCase]:
    return [parse_header(p) for p in sorted(CORPUS_DIR.glob("*.py"))]
