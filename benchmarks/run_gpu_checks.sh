#!/usr/bin/env bash
# The GPU checks of verikern in ONE script, for a machine with an NVIDIA GPU
# (written for an H200 with a CUDA 13 driver; any sm_75+ GPU works).
#
#   bash benchmarks/run_gpu_checks.sh            # from anywhere inside the checkout
#
# 1. installs what the machine's python3 lacks, from ./wheels if present
#    (made by benchmarks/fetch_gpu_wheels.sh; pip never touches the network
#    when wheels/ exists), 2. `pip install --no-deps -e .`, 3. runs
#    `pytest -m gpu` over the test files holding GPU tests, 4. runs the saxpy bandwidth benchmark.
# Each step has its own time limit; the whole script stays under ~6 minutes.
# Exit status: 0 when the tests and the benchmark passed, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
T0=$(date +%s)
RESULTS=${RESULTS:-gpu_check_results}
mkdir -p "$RESULTS"
status=0
step() { printf '\n== %s  (t=%ss)\n' "$1" "$(( $(date +%s) - T0 ))"; }

step "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader 2>&1 | head -4 \
  || echo "nvidia-smi not available"
"$PY" -c 'import sys; print("python", sys.version.split()[0], sys.executable)'

step "dependencies"
# A rented machine's system python may be "externally managed" (PEP 668) and
# may lack pip: allow installing into it, and run pip from its wheel if needed.
export PIP_BREAK_SYSTEM_PACKAGES=1 PIP_DISABLE_PIP_VERSION_CHECK=1
PIP=("$PY" -m pip)
if ! "$PY" -m pip --version >/dev/null 2>&1; then
  pipwheel=$(ls wheels/pip-*.whl 2>/dev/null | head -1)
  if [ -n "$pipwheel" ]; then PIP=("$PY" "$pipwheel/pip"); echo "pip: running from $pipwheel"
  else echo "pip is missing and wheels/ has no pip wheel: installs will fail"; fi
fi
# Needed by the GPU tests and the benchmark: numpy, pytest, llvmlite,
# cuda-python (and setuptools/wheel for the editable install). z3-solver,
# click, rich and hypothesis are only installed when their wheels are at hand.
missing=()
for spec in numpy:numpy pytest:pytest llvmlite:llvmlite cuda.bindings:cuda-python \
            setuptools:setuptools wheel:wheel; do
  mod=${spec%%:*}; pkg=${spec#*:}
  "$PY" -c "import $mod" 2>/dev/null || missing+=("$pkg")
done
for spec in z3:z3-solver click:click rich:rich hypothesis:hypothesis; do
  mod=${spec%%:*}; pkg=${spec#*:}
  "$PY" -c "import $mod" 2>/dev/null && continue
  if [ ! -d wheels ] || ls wheels | grep -qi "^${pkg//-/_}-"; then missing+=("$pkg"); fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  if [ -d wheels ]; then
    timeout 180 "${PIP[@]}" install -q --no-index --find-links wheels "${missing[@]}" \
      || { echo "pip install from wheels/ failed"; status=1; }
  else
    timeout 180 "${PIP[@]}" install -q "${missing[@]}" \
      || { echo "pip install failed (no wheels/ folder: run benchmarks/fetch_gpu_wheels.sh where there is network)"; status=1; }
  fi
else
  echo "all present"
fi
"$PY" -c 'import warp' 2>/dev/null && echo "warp: present (benchmark compares with it)" \
  || echo "warp: absent (benchmark runs without the Warp comparison; pip install warp-lang to add it)"

# libdevice (for kernels calling sin/cos/exp/log/pow) when carried in wheels/
[ -f wheels/libdevice.10.bc ] && export VERIKERN_LIBDEVICE="$PWD/wheels/libdevice.10.bc"

step "pip install --no-deps -e ."
timeout 120 "${PIP[@]}" install -q --no-deps --no-build-isolation -e . \
  > "$RESULTS/pip_install.log" 2>&1 || { tail -20 "$RESULTS/pip_install.log"; status=1; }
"$PY" - <<'PYEOF'
from verikern.backends.cuda import cuda_available, default_arch
ok, why = cuda_available(0)
print("cuda:0", "available, arch " + default_arch(0) if ok else "UNAVAILABLE: " + why)
PYEOF

# The files holding GPU tests (marked `gpu`, directly or through a param's marks):
# only these are collected, so the GPU machine needs none of the other tests'
# packages (Warp, dask, jsonschema, the cross-check solvers).
mapfile -t GPU_TEST_FILES < <(grep -rlE 'mark\.gpu|marks=.*\bgpu\b' tests --include='test_*.py' | sort)
step "pytest -m gpu (${#GPU_TEST_FILES[@]} files: ${GPU_TEST_FILES[*]})"
[ ${#GPU_TEST_FILES[@]} -gt 0 ] || { echo "no GPU test files found under tests/"; status=1; }
WORKERS=()
"$PY" -c 'import xdist' 2>/dev/null && WORKERS=(-n "${GPU_TEST_WORKERS:-8}")
timeout 300 "$PY" -m pytest -m gpu "${GPU_TEST_FILES[@]}" "${WORKERS[@]}" -q -p no:cacheprovider -rs \
  --junitxml="$RESULTS/pytest_gpu.xml" 2>&1 | tail -60
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || { echo "pytest exit status $rc"; status=1; }

step "benchmark: saxpy bandwidth (n = 2**28)"
timeout 150 "$PY" benchmarks/gpu_saxpy_bandwidth.py --json "$RESULTS/saxpy_bandwidth.json" 2>&1 | tail -20
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || { echo "benchmark exit status $rc"; status=1; }

step "done: status $status (results in $RESULTS/)"
exit $status
