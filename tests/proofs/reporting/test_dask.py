"""`verikern prove --executor dask`: proofs on a dask.distributed cluster
give the same verdicts, order and report as a local run."""
from __future__ import annotations

import json
import sys

import pytest

from helpers_report import CORPUS, ROOT, SAXPY, UNGUARDED, cli, copy

sys.path.insert(0, str(ROOT / "benchmarks"))
from determinism import differences, strip_timing  # noqa: E402

distributed = pytest.importorskip("distributed", reason="pip install 'dask[distributed]' (the test extra has it)")


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as c:
        yield c


def test_a_dask_run_gives_the_local_report(tmp_path, cluster):
    files = [copy(UNGUARDED, tmp_path), copy(SAXPY, tmp_path), copy(CORPUS / "ok_gather_in_range.py", tmp_path)]
    code_local, local, _ = cli("prove", *files, "--format", "json")
    code_dask, remote, err = cli("prove", *files, "--format", "json", "--executor", "dask",
                                 "--scheduler", cluster.scheduler_address)
    assert (code_local, code_dask) == (1, 1), err
    local, remote = json.loads(local), json.loads(remote)
    assert [k["kernel"] for k in remote["kernels"]] == ["fill_unguarded", "saxpy", "gather_checked"]
    assert differences(strip_timing(local), strip_timing(remote)) == []


def test_the_shared_cache_is_in_front_of_the_cluster(tmp_path, cluster):
    cache = tmp_path / "cache"
    saxpy = copy(SAXPY, tmp_path)
    args = ("prove", saxpy, "--format", "json", "--executor", "dask", "--scheduler",
            cluster.scheduler_address, "--cache-dir", cache)
    first, second = json.loads(cli(*args)[1]), json.loads(cli(*args)[1])
    assert (first["kernels"][0]["cached"], second["kernels"][0]["cached"]) == (False, True)


def test_dask_without_a_scheduler_or_an_unreachable_one_is_an_input_error(tmp_path, monkeypatch):
    import verikern.app.distributed as dist

    monkeypatch.setattr(dist, "CONNECT_TIMEOUT", "1s")
    saxpy = copy(SAXPY, tmp_path)
    code, _, err = cli("prove", saxpy, "--executor", "dask")
    assert code == 3 and "--scheduler" in err
    code, _, err = cli("prove", saxpy, "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9")
    assert code == 3 and "cannot reach the dask scheduler" in err
