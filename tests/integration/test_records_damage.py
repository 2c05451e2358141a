"""karaka.db damaged by bytes written into it or into its write-ahead log after a kill -9: the
damage or the lost records are named with the remedy, never "nothing to repair"."""

import os
import subprocess
import sys

import pytest

from tests.fakes import write_doc

pytestmark = pytest.mark.slow


def _karaka(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "karaka.app.cli", *args], capture_output=True, text=True, timeout=300)


def _ingest(docs, ws) -> None:
    done = _karaka("ingest", str(docs), "--workspace", str(ws), "--llm", "none", "--extractor", "parser")
    assert done.returncode == 0, done.stdout + done.stderr


def test_page_damage_in_karaka_db_is_found_by_repair(tmp_path):
    docs = tmp_path / "docs"
    for n in range(6):
        write_doc(docs, f"doc{n}.txt", *(f"Person {n} gave book {k} to friend {k}." for k in range(40)))
    _ingest(docs, tmp_path / "ws")
    db = tmp_path / "ws" / "karaka.db"
    assert not (tmp_path / "ws" / "karaka.db-wal").exists() or (tmp_path / "ws" / "karaka.db-wal").stat().st_size == 0
    with open(db, "r+b") as handle:  # garble pages in the middle of the file, not its header
        size = db.stat().st_size
        for at in range(4096 * 2, size - 4096, 4096 * 3):
            handle.seek(at + 16)
            handle.write(b"\xab" * 3000)
    repaired = _karaka("repair", "--workspace", str(tmp_path / "ws"))
    assert repaired.returncode != 0 and "nothing to repair" not in repaired.stdout
    assert "karaka.db: damaged" in repaired.stderr and "karaka ingest" in repaired.stderr


def test_damage_in_the_log_of_a_killed_writer_is_named(tmp_path):
    write_doc(tmp_path / "a", "first.txt", "Rama gave the bow to Lakshmana.")
    write_doc(tmp_path / "b", "second.txt", "Sita followed Rama into the forest.")
    ws = tmp_path / "ws"
    _ingest(tmp_path / "a", ws)
    killed = subprocess.run([sys.executable, "-c", (
        "import os, sys; from karaka.config import Context; from karaka.app.runner import run_ingest; "
        f"run_ingest(Context(workspace={str(ws)!r}, llm='none', extractor='parser'), {str(tmp_path / 'b')!r}); "
        "os.kill(os.getpid(), 9)")], capture_output=True, timeout=300)
    assert killed.returncode == -9
    wal = ws / "karaka.db-wal"
    assert wal.exists() and wal.stat().st_size > 4096  # the records of the second run are only in the log
    with open(wal, "r+b") as handle:
        handle.seek(32 + 24 + 64)  # inside the first frame's page: its checksum no longer holds
        handle.write(os.urandom(2048))
    stats = _karaka("stats", "--workspace", str(ws))
    assert "no record of 1 documents" in stats.stderr and "second" in stats.stderr, stats.stderr
    assert "karaka ingest" in stats.stderr


def test_unit_results_lost_from_the_records_are_named_and_the_same_ingest_restores_them(tmp_path):
    import sqlite3

    for n in range(2):
        write_doc(tmp_path / "docs", f"d{n}.txt", f"Rama gave bow {n} to Lakshmana.", f"Sita crossed river {n}.")
    ws = tmp_path / "ws"
    _ingest(tmp_path / "docs", ws)
    with sqlite3.connect(ws / "karaka.db") as db:  # what a rolled-back log leaves: the document, not its units
        db.execute("DELETE FROM results WHERE doc_id = 'd1'")
    stats = _karaka("stats", "--workspace", str(ws))
    assert "no unit results for 1 documents the graph holds (d1)" in stats.stderr and "karaka ingest" in stats.stderr
    _ingest(tmp_path / "docs", ws)
    again = _karaka("stats", "--workspace", str(ws))
    assert "no unit results" not in again.stderr and '"d1"' in again.stdout


def _open_records(path, start):
    """Open karaka.db at ``start`` (a shared moment), as a second CLI run does; its schema version."""
    import time

    from karaka.store.embedded.records import Records

    time.sleep(max(0.0, start - time.time()))
    records = Records(path)
    try:
        return records._db.execute("PRAGMA user_version").fetchone()[0]
    finally:
        records.close()


def test_processes_that_open_a_new_karaka_db_at_once_all_get_its_schema(tmp_path):
    """A process creating the schema is seen whole or not at all: no opener takes it for an older Karaka's."""
    import time
    from concurrent.futures import ProcessPoolExecutor

    from karaka.store.embedded.records import SCHEMA_VERSION

    with ProcessPoolExecutor(max_workers=6) as pool:
        for round_ in range(8):
            path = tmp_path / f"ws{round_}" / "karaka.db"
            start = time.time() + 0.5
            versions = list(pool.map(_open_records, [path] * 6, [start] * 6))
            assert versions == [SCHEMA_VERSION] * 6, round_
