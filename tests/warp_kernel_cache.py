"""Where the real-Warp tests keep the kernels Warp compiles: one folder that
outlives the run, so that a repeat run loads the modules an earlier run
compiled with clang instead of compiling them again.

The folder (`folder`) is $VERIKERN_TEST_WARP_CACHE, else this suite's own
folder in the user's cache folder ($XDG_CACHE_HOME or ~/.cache, then
verikern/warp-test-kernels). tests/conftest.py hands it to every Warp of the
run as $WARP_CACHE_PATH (`use_in_this_run`): the tests' own and their child
processes' (the integer-division children, the docs' console blocks).

Invariants:
- never Warp's default cache (nor a $WARP_CACHE_PATH the user set): the
  tests neither read nor write what the user's other Warp work compiled;
- Warp itself keys what it reuses: a subfolder per Warp version
  (`warp.config.version`, added by `warp.init`), in it a folder per module
  named by a hash of the module's kernels, functions, constants and options,
  built in a folder of its own and renamed into place, so the run's workers
  share it safely and a changed kernel is compiled anew;
- the tests still compare verikern with Warp's own output: Warp runs every
  kernel on the test's inputs each time; only clang's compile of an unchanged
  module is reused, as Warp reuses it for its users. A first run on a fresh
  machine (CI) compiles everything, as before.
"""
from __future__ import annotations

import os
from pathlib import Path

#: overrides the folder (a developer's or CI's choice; a fresh folder gives a cold run)
FOLDER_ENV = "VERIKERN_TEST_WARP_CACHE"


def folder(environ=os.environ) -> Path:
    """The folder this suite's Warp kernel cache lives in (Warp adds the version below it)."""
    if environ.get(FOLDER_ENV):
        return Path(environ[FOLDER_ENV]).expanduser().resolve()
    base = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return (Path(base).expanduser() / "verikern" / "warp-test-kernels").resolve()


def use_in_this_run(environ=os.environ) -> Path:
    """Point every Warp this process and its children initialise at `folder()`."""
    path = folder(environ)
    environ["WARP_CACHE_PATH"] = str(path)
    return path


def init_warp_quietly(wp):
    """`wp` initialised quietly with its kernel cache in `folder()`/<version>,
    whether or not another test of the process initialised it first."""
    wp.config.quiet = True
    wp.init()        # a first init reads $WARP_CACHE_PATH and adds the version
    wp.config.kernel_cache_dir = str(folder() / wp.config.version)
    return wp
