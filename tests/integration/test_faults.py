"""Faults a user's machine produces: a full disk at every stage, damaged and missing files, a read-only
workspace, a server stopped mid-run. After each, one re-run gives the export of an uninterrupted run."""

import errno
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import httpx
import pytest

from karaka.app.runner import close_checkpointers, run_ingest
from karaka.config import Context
from karaka.services import close_all, get_services
from karaka.store import atomic
from karaka.store.embedded import records
from tests.fakes import write_doc
from tests.server_util import free_port, wait_http

pytestmark = pytest.mark.slow  # real processes, servers or databases: not in the fast tier

NAMES = ["Rama", "Sita", "Hanuman", "Ravana", "Lakshmana", "Bharata"]


def _docs(folder):
    for d in range(3):
        write_doc(folder, f"book{d}.md", *(f"{NAMES[i % 6]} gave the bow {d}-{i} to {NAMES[(i + 1) % 6]} in Ayodhya."
                                           for i in range(15)))
    return folder


def _export(ctx, out):
    ws = get_services(ctx).workspace
    with ws.reading():
        ws.graph.export(out, "json")
    return out.read_bytes()


def _new_process():
    """What a crash leaves: nothing in memory, only the files."""
    close_all()
    close_checkpointers()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    base = tmp_path_factory.mktemp("reference")
    ctx = Context(workspace=str(base / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, _docs(base / "docs"))
    data = _export(ctx, base / "export.json")
    _new_process()
    return data


def _full_disk_on(monkeypatch, name, nth):
    """The ``nth`` atomic write of file ``name`` fails as a full disk would."""
    real, calls = atomic.atomic_write, {"n": 0}

    def write(path, writer):
        if os.path.basename(str(path)) == name:
            calls["n"] += 1
            if calls["n"] == nth:
                raise atomic.DiskFull(path) from OSError(errno.ENOSPC, "No space left on device")
        return real(path, writer)

    monkeypatch.setattr(atomic, "atomic_write", write)
    for module in ("karaka.store.embedded.graph", "karaka.store.embedded.vectors"):
        monkeypatch.setattr(f"{module}.atomic_write", write)
    monkeypatch.setattr("karaka.nodes.ingest.atomic_write_text",
                        lambda path, text: write(path, lambda handle: handle.write(text.encode())))
    return calls


@pytest.mark.parametrize(("name", "nth"), [("graph.json", 1), ("graph.json", 2), ("graph.json", 3),
                                           ("vectors.npz", 1), ("vectors.npz", 2), ("report.json", 1)])
def test_a_full_disk_at_every_stage_then_one_rerun_gives_the_uninterrupted_export(tmp_path, monkeypatch, reference,
                                                                                  name, nth):
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    docs = _docs(tmp_path / "docs")
    calls = _full_disk_on(monkeypatch, name, nth)
    with pytest.raises(OSError, match="no space left .*free space and run the same command again"):
        run_ingest(ctx, docs)
    assert calls["n"] == nth
    monkeypatch.undo()
    _new_process()
    report = run_ingest(ctx, docs)
    assert not report["failures"]
    assert _export(ctx, tmp_path / "export.json") == reference


@pytest.mark.parametrize("nth", [1, 3, 6, 9, 12, 15, 18])  # a run makes 18 transactions
def test_a_full_disk_in_the_records_then_one_rerun_gives_the_uninterrupted_export(tmp_path, monkeypatch, reference,
                                                                                  nth):
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    docs = _docs(tmp_path / "docs")
    real, calls = records.Records._transaction, {"n": 0}

    def transaction(self):
        calls["n"] += 1
        if calls["n"] == nth:
            raise self._named(sqlite3.OperationalError("database or disk is full"))
        return real(self)

    monkeypatch.setattr(records.Records, "_transaction", transaction)
    with pytest.raises(OSError, match="karaka.db; free space and run the same command again"):
        run_ingest(ctx, docs)
    monkeypatch.undo()
    _new_process()
    run_ingest(ctx, docs)
    assert _export(ctx, tmp_path / "export.json") == reference


@pytest.mark.parametrize("nth", [1, 2, 4, 6, 8])
def test_a_full_disk_in_the_checkpointer_then_one_rerun_gives_the_uninterrupted_export(tmp_path, monkeypatch,
                                                                                       reference, nth):
    from langgraph.checkpoint.sqlite import SqliteSaver

    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    docs = _docs(tmp_path / "docs")
    real, calls = SqliteSaver.put, {"n": 0}

    def put(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == nth:
            raise sqlite3.OperationalError("database or disk is full")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(SqliteSaver, "put", put)
    with pytest.raises(sqlite3.OperationalError, match="disk is full"):
        run_ingest(ctx, docs)
    monkeypatch.undo()
    _new_process()
    run_ingest(ctx, docs)
    assert _export(ctx, tmp_path / "export.json") == reference


def test_a_save_is_durable_its_folder_is_synced_after_the_rename(tmp_path, monkeypatch):
    synced = []
    real = os.fsync

    def fsync(fd):
        synced.append(os.path.isdir(f"/proc/self/fd/{fd}"))
        return real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    atomic.atomic_write_text(tmp_path / "report.json", "{}")
    assert synced == [False, True]  # the file, then the folder that holds the new name


def _cli(*args, check=None):
    result = subprocess.run([sys.executable, "-m", "karaka.app.cli", *map(str, args)], capture_output=True, text=True,
                            timeout=300)
    if check is not None:
        assert result.returncode == check, result.stdout + result.stderr
    return result


@pytest.fixture(scope="module")
def pristine(tmp_path_factory, reference):
    """A workspace ingested once by the CLI (its export equals the reference's), and its documents."""
    base = tmp_path_factory.mktemp("built")
    ws, docs = base / "ws", _docs(base / "docs")
    _cli("ingest", docs, "--workspace", ws, "--extractor", "parser", "--llm", "none", check=0)
    return ws, docs


@pytest.fixture
def built(tmp_path, pristine):
    """A copy of that workspace for one test to damage (the workspace holds no path of its own)."""
    ws = tmp_path / "ws"
    shutil.copytree(pristine[0], ws)
    return ws, pristine[1]


def _cli_export(ws, out):
    _cli("export", "--workspace", ws, "--format", "json", "--output", out, check=0)
    return out.read_bytes()


def test_the_cli_leaves_no_write_ahead_log_and_files_follow_the_umask(built, reference):
    ws, _ = built
    assert not (ws / "karaka.db-wal").exists() or (ws / "karaka.db-wal").stat().st_size == 0
    for name in ("graph.json", "vectors.npz", "report.json", "karaka.toml", "karaka.db"):
        assert (ws / name).stat().st_mode & 0o777 == 0o666 & ~atomic.UMASK, name
    (ws / "karaka.db-wal").write_bytes(os.urandom(4096))  # garbage in the log loses nothing
    stats = json.loads(_cli("stats", "--workspace", ws, check=0).stdout)
    assert len(stats["documents"]) == 3


@pytest.mark.parametrize("damage", ["truncate graph", "delete graph", "garble vectors", "delete vectors"])
def test_damaged_or_missing_files_are_named_and_repair_restores_the_export(built, reference, damage, tmp_path):
    ws, docs = built
    name = "graph.json" if "graph" in damage else "vectors.npz"
    if damage.startswith("truncate"):
        with open(ws / name, "r+b") as handle:
            handle.truncate((ws / name).stat().st_size // 2)
    elif damage.startswith("garble"):
        (ws / name).write_bytes(os.urandom(3000))
    else:
        (ws / name).unlink()
    asked = _cli("ask", "Who gave the bow 1-1 to Hanuman?", "--workspace", ws)
    assert f"{ws / name}" in asked.stderr and "karaka repair" in asked.stderr, asked.stderr
    assert "Traceback" not in asked.stderr
    if damage.startswith(("truncate", "garble")):
        assert asked.returncode == 2
    repaired = _cli("repair", "--workspace", ws, check=0)
    assert "set aside" in repaired.stdout or "missing" in repaired.stdout
    assert _cli_export(ws, tmp_path / "after.json") == reference
    assert "agree; nothing to repair" in _cli("repair", "--workspace", ws, check=0).stdout


def test_a_deleted_vectors_file_is_rebuilt_by_the_same_ingest(built, reference, tmp_path):
    ws, docs = built
    (ws / "vectors.npz").unlink()
    assert "vectors.npz: is missing" in _cli("stats", "--workspace", ws, check=0).stderr
    _cli("ingest", docs, "--workspace", ws, "--extractor", "parser", "--llm", "none", check=0)
    assert "agree; nothing to repair" in _cli("repair", "--workspace", ws, check=0).stdout
    assert _cli_export(ws, tmp_path / "after.json") == reference


def test_damaged_or_lost_records_are_named_and_a_reingest_restores_the_export(built, reference, tmp_path):
    ws, docs = built
    original = (ws / "karaka.db").read_bytes()
    (ws / "karaka.db").write_bytes(os.urandom(4096) + original[4096:])
    stats = _cli("stats", "--workspace", ws, check=2)
    assert f"{ws / 'karaka.db'}: damaged" in stats.stderr and "Traceback" not in stats.stderr
    (ws / "karaka.db").unlink()
    stats = _cli("stats", "--workspace", ws)
    assert "no record of 3 documents" in stats.stderr or "karaka.db: missing, though graph.json" in stats.stderr, \
        stats.stderr
    _cli("ingest", docs, "--workspace", ws, "--extractor", "parser", "--llm", "none", check=0)
    assert _cli_export(ws, tmp_path / "after.json") == reference


def _read_only_mount_works(folder):
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                            f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder}"],
                           capture_output=True, timeout=30)
    return probe.returncode == 0


def test_a_read_only_workspace_can_be_read(built, tmp_path):
    ws, _ = built
    shared = tmp_path / "shared"
    shutil.copytree(ws, shared)
    (shared / ".files.lock").unlink()  # a copy made without it
    if shutil.which("unshare") is None or not _read_only_mount_works(shared):
        pytest.skip("needs a private mount namespace (unshare -m, as root) for a read-only mount")
    before = sorted(p.name for p in shared.iterdir())
    for args in ("stats", "ask 'Who gave the bow 1-1 to Hanuman?'", "export --format json --output /dev/stdout"):
        # /dev/stdout is a pipe here: the export is written into it, not renamed over it
        script = (f"mount --bind {shared} {shared} && mount -o remount,bind,ro {shared} && "
                  f"exec {sys.executable} -m karaka.app.cli {args} --workspace {shared}")
        result = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, (args, result.stderr)
        assert "Hanuman" in result.stdout or '"nodes"' in result.stdout
    assert sorted(p.name for p in shared.iterdir()) == before  # nothing was written


def test_a_server_stopped_mid_run_records_the_run_as_interrupted(tmp_path):
    root = tmp_path / "root"
    for d in range(3):
        write_doc(root / "docs", f"book{d}.txt", *(f"{NAMES[i % 6]} gave the gift {d}-{i} to Sita." for i in range(60)))
    ws, port = tmp_path / "ws", free_port()
    cmd = [sys.executable, "-m", "karaka.app.cli", "serve", "--workspace", str(ws), "--port", str(port),
           "--ingest-root", str(root), "--llm", "simulated:latency=0.05"]
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_http(f"{url}/health", server, 120)
        run_id = httpx.post(f"{url}/ingest", json={"paths": ["docs"]}, timeout=30).json()["run_id"]
        deadline = time.monotonic() + 120
        while httpx.get(f"{url}/runs/{run_id}", timeout=10).json()["progress"]["done"] < 5:
            assert time.monotonic() < deadline
            time.sleep(0.2)
        server.send_signal(signal.SIGTERM)
        _, err = server.communicate(timeout=60)
        assert f"ingestion runs interrupted: {run_id}" in err
    finally:
        server.kill()
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_http(f"{url}/health", server, 120)
        view = httpx.get(f"{url}/runs/{run_id}", timeout=10).json()
        assert view["status"] == "interrupted" and "resume" in view["error"]
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)


def test_a_closed_stdout_is_not_an_error(built):
    ws, _ = built
    shell = subprocess.run(f"{sys.executable} -m karaka.app.cli stats --workspace {ws} | head -1", shell=True,
                           capture_output=True, text=True, timeout=120)
    assert "Broken pipe" not in shell.stderr and "Traceback" not in shell.stderr
