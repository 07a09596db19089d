"""`verikern prove --executor dask`: proofs on a dask.distributed cluster
give the same verdicts, order and report as a local run."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from helpers_report import CORPUS, GATHER, ROOT, SAXPY, UNGUARDED, cli, copy

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


# ------------------------------------------------------------ a real cluster
@pytest.fixture
def real_cluster(tmp_path):
    """A scheduler without workers (in this process: it only routes tasks and
    reads no file; on 127.0.0.1 over tcp, so the client's tasks travel
    serialised as to a remote one) and one `dask-worker`, a separate process
    whose working directory is a folder of its own (not the client's): the
    only place a task runs. The worker is ended afterwards, then the scheduler.
    (A `dask-scheduler` process as well cost about 0.7 CPU s and checked no more.)"""
    home = tmp_path / "cluster"
    home.mkdir()
    # no dashboard; the scheduler's HTTP routes on a free port (the default 8787 may be taken)
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None,
                                  scheduler_kwargs={"dashboard_address": ":0"}) as scheduler:
        address = scheduler.scheduler_address
        worker = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", address, "--host", "127.0.0.1",
             "--nthreads", "1", "--nworkers", "1", "--no-dashboard", "--local-directory", str(home),
             "--death-timeout", "60"],
            cwd=home, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            yield address
        finally:
            worker.terminate()
            try:
                worker.wait(timeout=20)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait(timeout=20)


def test_a_real_cluster_in_another_folder_gives_the_local_report(tmp_path, real_cluster, monkeypatch):
    client_dir = tmp_path / "client"
    (client_dir / "kernels").mkdir(parents=True)
    for src in (UNGUARDED, SAXPY):
        copy(src, client_dir / "kernels")
    crlf = client_dir / "kernels" / "gather_crlf.py"          # read as compile_file reads it
    crlf.write_bytes(GATHER.read_bytes().replace(b"\n", b"\r\n"))
    bad = client_dir / "kernels" / "latin1.py"                # not UTF-8: reported by the client
    bad.write_bytes(b"# caf\xe9\n")
    monkeypatch.chdir(client_dir)                             # relative paths, unknown to the workers
    args = ("prove", "kernels", "--format", "json", "--no-cache")
    code_local, local, _ = cli(*args)
    code_dask, remote, err = cli(*args, "--executor", "dask", "--scheduler", real_cluster)
    assert (code_local, code_dask) == (1, 1), err
    local, remote = json.loads(local), json.loads(remote)
    assert [(k["file"], k["kernel"], k["status"]) for k in remote["kernels"]] == [
        ("kernels/bounds_unguarded_write.py", "fill_unguarded", "failed"),
        ("kernels/gather_crlf.py", "gather_checked", "proved"),
        ("kernels/latin1.py", "<module>", "error"),
        ("kernels/saxpy.py", "saxpy", "proved")]
    assert "cannot read" not in json.dumps(remote["kernels"][:2] + remote["kernels"][3:])
    assert differences(strip_timing(local), strip_timing(remote)) == []
    assert remote["sources"] == local["sources"]


def test_a_dask_run_of_a_package_reads_its_project_modules_as_a_local_run(cluster):
    package = str(ROOT / "tests" / "data" / "project_pkg" / "vkproj")
    code_local, local, _ = cli("prove", package, "--format", "json")
    code_dask, remote, err = cli("prove", package, "--format", "json", "--executor", "dask",
                                 "--scheduler", cluster.scheduler_address)
    assert (code_local, code_dask) == (1, 1), err
    local, remote = json.loads(local), json.loads(remote)
    assert [k["status"] for k in remote["kernels"]].count("proved") == 2   # not closure errors
    assert differences(strip_timing(local), strip_timing(remote)) == []
