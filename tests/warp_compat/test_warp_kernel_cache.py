"""The suite's persistent Warp kernel cache (tests/warp_kernel_cache.py): its
folder is the suite's own, never Warp's default one, and real Warp, started
anew as a later run starts it, loads a module an earlier process compiled and
compiles a changed kernel anew, each giving that kernel's own output."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import warp_kernel_cache
from warp_kernel_cache import FOLDER_ENV, folder

#: a child process: the kernel writes `SCALE * i`; prints Warp's load messages and the output
CHILD = """
import importlib.util, sys
from pathlib import Path
import warp as wp
wp.config.quiet = False
wp.init()
path = Path(sys.argv[1])
spec = importlib.util.spec_from_file_location("verikern_cache_probe", path)
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
out = wp.zeros(4, dtype=int, device="cpu")
wp.launch(m.scaled, dim=4, inputs=[out], device="cpu")
print("OUT", out.numpy().tolist())
"""
KERNEL = """import warp as wp

SCALE = wp.constant({scale})


@wp.kernel
def scaled(out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = SCALE * i
"""


def test_the_folder_is_the_suites_own_and_can_be_chosen(tmp_path):
    assert folder({FOLDER_ENV: str(tmp_path / "mine")}) == (tmp_path / "mine").resolve()
    assert folder({"XDG_CACHE_HOME": str(tmp_path)}) == (tmp_path / "verikern" / "warp-test-kernels").resolve()
    env = {"XDG_CACHE_HOME": str(tmp_path), "WARP_CACHE_PATH": str(tmp_path / "users-warp")}
    assert warp_kernel_cache.use_in_this_run(env) == folder(env)
    assert env["WARP_CACHE_PATH"] == str(folder(env))          # the user's own is not used
    wp = pytest.importorskip("warp")
    warps_default = Path(wp._src.build.appdirs.user_cache_dir(appname="warp", appauthor="NVIDIA"))
    assert warps_default.resolve() not in (folder(os.environ), *folder(os.environ).parents)


def _child(source: Path, cache: Path) -> subprocess.CompletedProcess:
    # -B: no __pycache__ for the probe, whose rewrites (SCALE 3 -> 5) keep its size and may keep
    # its mtime's second, so a bytecode file from the run before would pass for the new source
    env = {**os.environ, "WARP_CACHE_PATH": str(cache)}
    return subprocess.run([sys.executable, "-B", "-c", CHILD, str(source)], env=env, capture_output=True,
                          text=True, timeout=600)


def test_a_later_process_loads_the_compiled_module_and_a_changed_kernel_is_compiled(tmp_path):
    pytest.importorskip("warp")
    cache = tmp_path / "cache"
    source = tmp_path / "probe.py"
    runs = []
    for scale in (3, 3, 5):
        source.write_text(KERNEL.format(scale=scale))
        runs.append(_child(source, cache))
        assert runs[-1].returncode == 0, runs[-1].stderr
    first, again, changed = (r.stdout for r in runs)
    assert "(compiled)" in first and "OUT [0, 3, 6, 9]" in first
    assert "(cached)" in again and "(compiled)" not in again and "OUT [0, 3, 6, 9]" in again
    assert "(compiled)" in changed and "OUT [0, 5, 10, 15]" in changed     # not the stale module
    versions = [p for p in cache.iterdir() if p.is_dir()]
    assert len(versions) == 1 and len([p for p in versions[0].iterdir() if p.name.startswith("wp_")]) == 2
