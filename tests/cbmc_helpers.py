"""What the tests of the CBMC engine share."""
from __future__ import annotations

import pytest


@pytest.fixture
def cbmc_on_path(monkeypatch, tmp_path):
    """A stand-in `cbmc` (it exits 0) as $VERIKERN_CBMC: find_cbmc finds it,
    and the tests hand prove_kernel_cbmc a runner that answers instead."""
    exe = tmp_path / "cbmc"
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    monkeypatch.setenv("VERIKERN_CBMC", str(exe))
