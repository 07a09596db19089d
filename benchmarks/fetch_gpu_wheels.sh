#!/usr/bin/env bash
# Download (here, with network) the wheels benchmarks/run_gpu_checks.sh
# installs on the GPU machine: CPython 3.12, manylinux x86_64, into ./wheels
# (git-ignored). Pass package names to fetch only those, e.g.
#   bash benchmarks/fetch_gpu_wheels.sh llvmlite z3-solver cuda-python
# Add warp-lang to compare with NVIDIA Warp (a large wheel).
set -euo pipefail
cd "$(dirname "$0")/.."
PYVER=${GPU_PYTHON_VERSION:-3.12}
ABI=cp${PYVER/./}
if [ $# -gt 0 ]; then pkgs=("$@"); else
  pkgs=(llvmlite z3-solver click rich cuda-python numpy pytest hypothesis setuptools wheel)
fi
mkdir -p wheels
python3 -m pip download --disable-pip-version-check --dest wheels --only-binary=:all: \
  --python-version "$PYVER" --implementation cp --abi "$ABI" --abi abi3 --abi none \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform any \
  "${pkgs[@]}"
ls -la wheels
du -sh wheels
