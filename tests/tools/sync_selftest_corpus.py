"""Copy tests/corpus (the one source of truth) to verikern/selftest_corpus,
the copy `verikern selftest` ships with the package:

    python tests/tools/sync_selftest_corpus.py

tests/report/test_selftest.py fails whenever the two differ.
"""
from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "tests" / "corpus"
SHIPPED = ROOT / "verikern" / "selftest_corpus"


def differences() -> list[str]:
    """What differs between the corpus and the shipped copy (file names)."""
    src = {p.name: p.read_bytes() for p in SOURCE.glob("*.py")}
    dst = {p.name: p.read_bytes() for p in SHIPPED.glob("*.py")}
    out = [f"missing from the shipped copy: {n}" for n in sorted(src.keys() - dst.keys())]
    out += [f"only in the shipped copy: {n}" for n in sorted(dst.keys() - src.keys())]
    out += [f"differs: {n}" for n in sorted(src.keys() & dst.keys()) if src[n] != dst[n]]
    return out


def sync() -> None:
    SHIPPED.mkdir(exist_ok=True)
    for stale in SHIPPED.glob("*.py"):
        if not (SOURCE / stale.name).exists():
            stale.unlink()
    for p in SOURCE.glob("*.py"):
        shutil.copyfile(p, SHIPPED / p.name)


if __name__ == "__main__":
    sync()
    print(f"synced {len(list(SHIPPED.glob('*.py')))} files; differences now: {differences() or 'none'}")
