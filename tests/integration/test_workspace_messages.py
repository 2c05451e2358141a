"""What the commands say about a workspace with a file missing or damaged, and about another
server's run: each names the file or the process, and the remedy."""

import os
import subprocess
import sys

import pytest

from karaka.app.http.runs import Runs
from karaka.app.runner import run_ingest
from karaka.config import Context
from karaka.services import get_services
from karaka.store.embedded import index
from tests.fakes import write_doc
from tests.server_util import free_port

pytestmark = pytest.mark.slow


def _karaka(*args: str, seconds: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "karaka.app.cli", *args], capture_output=True, text=True, timeout=seconds)


@pytest.fixture
def workspace(tmp_path):
    write_doc(tmp_path / "docs", "epic.txt", "Rama gave the bow to Lakshmana.")
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, tmp_path / "docs")
    return ctx, tmp_path / "ws"


def test_records_deleted_beside_a_graph_are_named_with_the_remedy(workspace):
    _, ws = workspace
    (ws / "karaka.db").unlink()
    asked = _karaka("ask", "--workspace", str(ws), "--llm", "none", "Who gave the bow?")
    assert asked.returncode == 2 and "karaka.db: missing, though graph.json is there" in asked.stderr
    assert "karaka ingest PATH" in asked.stderr and "is empty" not in asked.stderr


def test_damaged_checkpoints_are_named_as_such(tmp_path):
    write_doc(tmp_path / "docs", "epic.txt", "Rama gave the bow to Lakshmana.")
    ws = tmp_path / "ws"
    first = _karaka("ingest", str(tmp_path / "docs"), "--workspace", str(ws), "--llm", "none", "--extractor", "parser")
    assert first.returncode == 0  # a CLI run folds its logs: the damage below is in the file read next
    with open(ws / "checkpoints.sqlite", "r+b") as handle:
        handle.write(b"garbage!" * 200)
    write_doc(tmp_path / "docs", "more.txt", "Sita followed Rama.")
    ingested = _karaka("ingest", str(tmp_path / "docs"), "--workspace", str(ws), "--llm", "none",
                       "--extractor", "parser")
    assert ingested.returncode == 2 and "checkpoints.sqlite (LangGraph's checkpoints" in ingested.stderr


def test_serve_warns_at_start_when_graph_json_is_gone(workspace):
    _, ws = workspace
    (ws / "graph.json").unlink()
    port = str(free_port())
    server = subprocess.Popen([sys.executable, "-m", "karaka.app.cli", "serve", "--workspace", str(ws), "--llm", "none",
                               "--port", port], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stderr.readline()  # the first thing it says
    finally:
        server.terminate()
        server.communicate(timeout=30)
    assert "graph.json" in line and "karaka repair" in line


def test_a_failed_index_rebuild_leaves_no_temporary_file(workspace):
    ctx, ws = workspace
    graph = get_services(ctx).workspace.graph

    class Broken:
        _g = None  # reading its nodes fails mid-rebuild

    with pytest.raises(AttributeError):
        index._rebuild(ws / "graph.sqlite", Broken(), 1, 1)  # type: ignore[arg-type]
    assert not (ws / ".graph.sqlite.tmp").exists() and len(graph) > 0


def test_another_live_servers_run_is_not_called_interrupted(workspace):
    ctx, _ = workspace
    records = get_services(ctx).workspace.records
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        host = os.uname().nodename
        for run_id, pid in (("aaaaaaaaaaaa", other.pid), ("bbbbbbbbbbbb", 2 ** 22 + 7)):
            records.start_run(f"http-{run_id}")
            records.finish_run(f"http-{run_id}", {"run_id": run_id, "status": "running", "paths": ["docs"],
                                                  "progress": {"done": 1, "total": 5}, "report": None, "error": None,
                                                  "started": 0.0, "finished": None, "owner": f"{host}:{pid}"})
        runs = Runs(ctx, ctx.workspace)
        alive, dead = runs.get("aaaaaaaaaaaa"), runs.get("bbbbbbbbbbbb")
        assert alive.status == "running" and "another server process" in alive.error
        assert dead.status == "interrupted"
        assert "owner" not in alive.view()
    finally:
        other.kill()


@pytest.mark.parametrize(("name", "said"), [("vectors.npz", "Bad CRC-32"), ("graph.sqlite", "malformed")])
def test_ingest_of_unchanged_files_names_a_damaged_file(tmp_path, name, said):
    for n in range(3):
        write_doc(tmp_path / "docs", f"d{n}.txt", f"Rama gave bow {n} to Lakshmana.", f"Sita crossed river {n}.")
    ws = tmp_path / "ws"
    args = ("ingest", str(tmp_path / "docs"), "--workspace", str(ws), "--llm", "none", "--extractor", "parser")
    assert _karaka(*args).returncode == 0
    damaged = bytearray((ws / name).read_bytes())
    middle = len(damaged) // 2
    damaged[middle:middle + 2000] = bytes(b ^ 0xFF for b in damaged[middle:middle + 2000])
    (ws / name).write_bytes(bytes(damaged))
    again = _karaka(*args)  # every file unchanged: before, "finished" and exit 0
    assert again.returncode == 2 and f"{name}: damaged" in again.stderr and said in again.stderr
    assert "karaka repair" in again.stderr
    assert _karaka("repair", "--workspace", str(ws)).returncode == 0 and _karaka(*args).returncode == 0
