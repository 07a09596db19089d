#!/usr/bin/env bash
# Download (here, with network) the wheels benchmarks/run_gpu_checks.sh
# installs on the GPU machine: CPython 3.12, manylinux x86_64, into ./wheels
# (git-ignored). Pass package names to fetch only those, e.g.
#   bash benchmarks/fetch_gpu_wheels.sh llvmlite cuda-python
# (z3-solver click rich hypothesis: only for running the rest of the suite there)
# Add warp-lang to compare with NVIDIA Warp (a large wheel), and nvidia-nvvm
# when the GPU machine has no CUDA toolkit (its libdevice is needed by kernels
# that use sin/cos/exp/log/pow; verikern also finds Warp's bundled copy).
set -euo pipefail
cd "$(dirname "$0")/.."
PYVER=${GPU_PYTHON_VERSION:-3.12}
ABI=cp${PYVER/./}
# The default set is what the GPU tests and the benchmark need (the device
# copy of the tree travels with at most 64 MiB, so fetch only what the GPU
# machine lacks: run_gpu_checks.sh prints that list first).
if [ $# -gt 0 ]; then pkgs=("$@"); else
  pkgs=(llvmlite cuda-python numpy pytest setuptools wheel pip)
fi
mkdir -p wheels
python3 -m pip download --disable-pip-version-check --dest wheels --only-binary=:all: \
  --python-version "$PYVER" --implementation cp --abi "$ABI" --abi abi3 --abi none \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform any \
  "${pkgs[@]}"
# libdevice.10.bc (464 KB) from this machine, in case the GPU machine has no
# CUDA toolkit: run_gpu_checks.sh points VERIKERN_LIBDEVICE at it.
python3 - <<'PYEOF'
import shutil
from verikern.backends.ptx import find_libdevice
path = find_libdevice()
if path:
    shutil.copy(path, "wheels/libdevice.10.bc")
    print("copied", path)
else:
    print("no libdevice.10.bc here (pip install nvidia-nvvm)")
PYEOF
ls -la wheels
du -sh wheels
