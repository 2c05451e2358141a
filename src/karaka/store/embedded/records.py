"""Durable per-unit results, decisions, run reports and the workspace generation, in one SQLite file."""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from karaka.store.base import SourceLine
from karaka.store.damage import REINGEST, DamagedFile, DiskFull, is_disk_full
from karaka.store.embedded.lock import is_read_only

log = logging.getLogger("karaka.store")
SCHEMA_VERSION = 4
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
  doc_id TEXT PRIMARY KEY, path TEXT NOT NULL, sha256 TEXT NOT NULL,
  n_lines INTEGER NOT NULL, status TEXT NOT NULL, updated REAL NOT NULL);
CREATE INDEX IF NOT EXISTS documents_path ON documents(path);
CREATE TABLE IF NOT EXISTS lines (
  doc_id TEXT NOT NULL, seq INTEGER NOT NULL, line_number INTEGER NOT NULL, sentence INTEGER NOT NULL,
  text TEXT NOT NULL, page INTEGER NOT NULL DEFAULT 0, page_line INTEGER NOT NULL DEFAULT 0,
  section TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL DEFAULT '', method TEXT NOT NULL DEFAULT '',
  lang TEXT NOT NULL DEFAULT '', chapter TEXT NOT NULL DEFAULT '', verse TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (doc_id, seq));
CREATE TABLE IF NOT EXISTS results (
  unit_id TEXT PRIMARY KEY, doc_id TEXT NOT NULL, first_line INTEGER NOT NULL,
  last_line INTEGER NOT NULL, status TEXT NOT NULL, payload TEXT NOT NULL,
  llm_calls INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL, attempts INTEGER NOT NULL,
  fast_path INTEGER NOT NULL, seconds REAL NOT NULL, run_id TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS results_doc ON results(doc_id);
CREATE TABLE IF NOT EXISTS decisions (
  key TEXT PRIMARY KEY, step TEXT NOT NULL, doc_id TEXT, payload TEXT NOT NULL,
  llm_calls INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL, run_id TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY, started REAL NOT NULL, finished REAL, report TEXT);
"""
LINE_BATCH = 5000
PLACE_COLUMNS = ("page INTEGER NOT NULL DEFAULT 0", "page_line INTEGER NOT NULL DEFAULT 0",
                  "section TEXT NOT NULL DEFAULT ''", "kind TEXT NOT NULL DEFAULT ''",
                  "method TEXT NOT NULL DEFAULT ''", "lang TEXT NOT NULL DEFAULT ''")
"""What schema 3 added to ``lines``: a sentence's page, line on the page, section, kind, method, language."""
BOOK_COLUMNS = ("chapter TEXT NOT NULL DEFAULT ''", "verse TEXT NOT NULL DEFAULT ''")
"""What schema 4 added: a book's chapter and numbered unit (verse, paragraph)."""
_LINE_FIELDS = ("seq", "line_number", "sentence", "text", "page", "page_line", "section", "kind", "method", "lang",
                "chapter", "verse")


class Records:
    """Thread-safe access to the workspace's SQLite records (WAL mode, waits on a busy database)."""

    def __init__(self, path: str | Path, *, busy_seconds: float = 30.0):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self.read_only = is_read_only(self.path.parent)
        wal = self.path.with_name(self.path.name + "-wal")
        self.unclean = not self.read_only and wal.exists() and wal.stat().st_size > 0
        """The last process that wrote it stopped without folding its log (a kill -9, a crash)."""
        if self.read_only:  # a shared, mounted knowledge base: read it as it is, change nothing
            if not self.path.exists():
                raise DamagedFile(self.path, "missing in a read-only workspace", "ingest into a writable one")
            uri = f"file:{quote(str(self.path))}?immutable=1"
            self._db = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
        else:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                       timeout=busy_seconds)
        deadline = time.monotonic() + busy_seconds
        while True:  # another process may be creating or changing the file this very moment
            try:
                self._open()
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise self._named(exc) from exc
                time.sleep(0.05)
            except sqlite3.DatabaseError as exc:
                raise self._named(exc) from exc
        if self.unclean and (damage := self.damage()):
            self._db.close()
            raise DamagedFile(self.path, f"damaged (SQLite's check: {damage})", REINGEST)

    def damage(self) -> str:
        """What SQLite's ``PRAGMA quick_check`` finds wrong in the file ("" when nothing)."""
        try:
            with self._lock:
                rows = self._db.execute("PRAGMA quick_check(5)").fetchall()
        except sqlite3.DatabaseError as exc:
            return str(exc)
        found = [str(r[0]) for r in rows if str(r[0]) != "ok"]
        return "; ".join(found)[:300]

    def fold(self) -> None:
        """Fold the write-ahead log into the database file (a long-running server does it now and then)."""
        with self._lock:
            if not self.read_only:
                try:
                    self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error as exc:  # busy: the next fold will do
                    log.debug("wal checkpoint skipped: %s", exc)

    def _named(self, exc: sqlite3.Error) -> Exception:
        """A SQLite error as one line naming karaka.db and the remedy."""
        if is_disk_full(exc):
            return DiskFull(self.path)
        if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
            return TimeoutError(f"{self.path}: another process holds the database ({exc})")
        return DamagedFile(self.path, f"damaged ({exc})", REINGEST)

    def _open(self) -> None:
        if not self.read_only:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
        # one statement, one snapshot: another process may be creating the schema right now
        version, has_lines = self._db.execute(
            "SELECT (SELECT user_version FROM pragma_user_version), "
            "EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'lines')").fetchone()
        if version in (2, 3) and not self.read_only:  # schema 2 lacked the places beyond the file line, 3 a book's
            with self._transaction() as db:
                for column in (PLACE_COLUMNS if version == 2 else ()) + BOOK_COLUMNS:
                    db.execute(f"ALTER TABLE lines ADD COLUMN {column}")
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            version = SCHEMA_VERSION
        if version not in (0, 2, 3, SCHEMA_VERSION) or (version == 0 and has_lines):
            made = "a newer" if version > SCHEMA_VERSION else "an older"
            raise ValueError(f"{self.path}: made by {made} Karaka (records schema {version}, this one reads "
                             f"{SCHEMA_VERSION}); ingest into a new workspace")
        if version == 0 and not self.read_only:  # in one transaction: a concurrent opener sees all of it or none
            self._db.executescript(f"BEGIN IMMEDIATE; {SCHEMA}; PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")

    def close(self) -> None:
        """Fold the write-ahead log into the database file, then close the connection.

        A process that ends with committed transactions only in karaka.db-wal leaves them at the
        mercy of that file; after the checkpoint the database file holds everything.
        """
        with self._lock:
            try:
                if not self.read_only:
                    self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error:  # busy with another process's reader, or closed: its WAL stays valid
                pass
            self._db.close()

    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            try:
                cur = self._db.execute(sql, args)
                cur.row_factory = sqlite3.Row
                return cur.fetchall()
            except sqlite3.DatabaseError as exc:
                raise self._named(exc) from exc

    @contextmanager
    def _transaction(self) -> Iterator[Any]:
        """One write transaction; yields what runs ``execute`` and ``executemany`` (``?`` placeholders)."""
        with self._lock:
            if self.read_only:
                raise PermissionError(f"{self.path.parent}: the workspace is read-only; this needs a writable one")
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    yield self._db
                    self._db.execute("COMMIT")
                except BaseException:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise
            except sqlite3.DatabaseError as exc:  # a full disk, a damaged file: named, with the remedy
                raise self._named(exc) from exc

    def _write(self, statements: Iterable[tuple[str, tuple[Any, ...]]]) -> None:
        with self._transaction() as db:
            for sql, args in statements:
                db.execute(sql, args)

    # -- the workspace generation: bumped by every save, read by every reader -------------------
    def generation(self) -> int:
        """How many times the workspace's graph and vectors were saved (any process)."""
        rows = self._rows("SELECT value FROM meta WHERE key = 'generation'")
        return int(rows[0]["value"]) if rows else 0

    def bump_generation(self) -> int:
        """Record one more save; returns the new generation."""
        with self._lock:
            self._write([("INSERT INTO meta VALUES ('generation', '1') ON CONFLICT(key) "
                          "DO UPDATE SET value = CAST(value AS INTEGER) + 1", ())])
            return self.generation()

    # -- documents ----------------------------------------------------------------------------
    def document(self, doc_id: str) -> dict[str, Any] | None:
        """The stored row of a document, or None."""
        rows = self._rows("SELECT * FROM documents WHERE doc_id = ?", (doc_id,))
        return dict(rows[0]) if rows else None

    def document_by_path(self, path: str) -> dict[str, Any] | None:
        """The document ingested from this source path, or None."""
        rows = self._rows("SELECT * FROM documents WHERE path = ? ORDER BY doc_id LIMIT 1", (path,))
        return dict(rows[0]) if rows else None

    def documents(self) -> list[dict[str, Any]]:
        """Every stored document row."""
        return [dict(r) for r in self._rows("SELECT * FROM documents ORDER BY doc_id")]

    def put_document(self, doc_id: str, path: str, sha256: str, lines: list[SourceLine], status: str) -> None:
        """Replace a document's row, its lines and (when its content changed) its results."""
        old = self.document(doc_id)
        changed = old is None or old["sha256"] != sha256
        with self._transaction() as db:
            if changed:
                for table in ("lines", "results", "decisions"):
                    db.execute(f"DELETE FROM {table} WHERE doc_id = ?", (doc_id,))
                for start in range(0, len(lines), LINE_BATCH):
                    db.executemany(
                        "INSERT INTO lines VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [(doc_id, *s) for s in lines[start:start + LINE_BATCH]])
            db.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))
            db.execute("INSERT INTO documents VALUES (?, ?, ?, ?, ?, ?)",
                       (doc_id, path, sha256, len(lines), status, time.time()))

    def set_status(self, doc_id: str, status: str) -> None:
        """Update a document's status (see ``DocStatus``)."""
        self._write([("UPDATE documents SET status = ?, updated = ? WHERE doc_id = ?",
                      (status, time.time(), doc_id))])

    def remove_document(self, doc_id: str) -> None:
        """Delete everything stored for a document."""
        self._write([(f"DELETE FROM {table} WHERE doc_id = ?", (doc_id,))
                     for table in ("documents", "lines", "results", "decisions")])

    def lines(self, doc_id: str, first: int = 1, last: int | None = None) -> list[SourceLine]:
        """A document's sentences ``first..last`` (by seq) in order."""
        rows = self._rows(f"SELECT {', '.join(_LINE_FIELDS)} FROM lines "
                          "WHERE doc_id = ? AND seq >= ? AND seq <= ? ORDER BY seq",
                          (doc_id, first, last if last is not None else 1 << 62))
        return [SourceLine(*(r[k] for k in _LINE_FIELDS)) for r in rows]

    def line(self, doc_id: str, seq: int) -> SourceLine | None:
        """One sentence."""
        found = self.lines(doc_id, seq, seq)
        return found[0] if found else None

    # -- extraction results -------------------------------------------------------------------
    def result(self, unit_id: str) -> dict[str, Any] | None:
        """A stored unit result (payload decoded), or None."""
        rows = self._rows("SELECT * FROM results WHERE unit_id = ?", (unit_id,))
        if not rows:
            return None
        row = dict(rows[0])
        row["payload"] = json.loads(row["payload"])
        return row

    def done_units(self, doc_id: str) -> set[str]:
        """Unit ids already finished for a document."""
        return {r["unit_id"] for r in self._rows("SELECT unit_id FROM results WHERE doc_id = ?", (doc_id,))}

    def put_result(self, unit_id: str, doc_id: str, first: int, last: int, status: str,
                   payload: Any, *, llm_calls: int, prompt_tokens: int, attempts: int,
                   fast_path: bool, seconds: float, run_id: str) -> None:
        """Store one unit's outcome (idempotent on unit_id)."""
        self.put_results([(unit_id, doc_id, first, last, status, payload, llm_calls, prompt_tokens, attempts,
                           fast_path, seconds, run_id)])

    def put_results(self, rows: list[tuple[Any, ...]]) -> None:
        """Store many units' outcomes in one transaction (rows in ``put_result``'s argument order)."""
        with self._transaction() as db:
            db.executemany("DELETE FROM results WHERE unit_id = ?", [(row[0],) for row in rows])
            db.executemany(
                "INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(unit, doc, first, last, str(status), json.dumps(payload, ensure_ascii=False), calls, tokens,
                  attempts, int(fast), seconds, run_id)
                 for unit, doc, first, last, status, payload, calls, tokens, attempts, fast, seconds, run_id in rows])

    def documents_with_results(self) -> set[str]:
        """The documents that have at least one unit result."""
        return {str(r["doc_id"]) for r in self._rows("SELECT DISTINCT doc_id FROM results")}

    def results(self, doc_ids: list[str] | None = None) -> list[dict[str, Any]]:
        """Unit results, optionally for some documents, ordered by position."""
        if doc_ids is None:
            rows = self._rows("SELECT * FROM results ORDER BY doc_id, first_line, last_line")
        else:
            rows = []
            for start in range(0, len(doc_ids), 500):
                chunk = doc_ids[start:start + 500]
                rows += self._rows(f"SELECT * FROM results WHERE doc_id IN ({','.join('?' * len(chunk))}) "
                                   "ORDER BY doc_id, first_line, last_line", tuple(chunk))
        out = []
        for row in rows:
            item = dict(row)
            item["payload"] = json.loads(item["payload"])
            out.append(item)
        return out

    def result_summary(self, doc_ids: list[str]) -> list[dict[str, Any]]:
        """Per-unit status and cost without payloads (for reports over large runs)."""
        out: list[dict[str, Any]] = []
        for start in range(0, len(doc_ids), 500):
            chunk = doc_ids[start:start + 500]
            out += [dict(r) for r in self._rows(
                "SELECT unit_id, doc_id, first_line, last_line, status, llm_calls, prompt_tokens, attempts, "
                f"fast_path FROM results WHERE doc_id IN ({','.join('?' * len(chunk))})", tuple(chunk))]
        return out

    # -- memoised decisions (post-processing, queries) ----------------------------------------
    def decision(self, key: str) -> dict[str, Any] | None:
        """A memoised decision, or None."""
        rows = self._rows("SELECT payload FROM decisions WHERE key = ?", (key,))
        return json.loads(rows[0]["payload"]) if rows else None

    def put_decision(self, key: str, step: str, doc_id: str | None, payload: Any,
                     llm_calls: int, prompt_tokens: int, run_id: str) -> None:
        """Memoise a decision so a resumed run does not ask the LLM again."""
        self._write([("DELETE FROM decisions WHERE key = ?", (key,)), (
            "INSERT INTO decisions VALUES (?, ?, ?, ?, ?, ?, ?)",
            (key, step, doc_id, json.dumps(payload, ensure_ascii=False), llm_calls, prompt_tokens, run_id),
        )])

    def decision_costs(self, run_id: str) -> dict[str, dict[str, int]]:
        """LLM calls and prompt tokens per post-processing step for a run."""
        rows = self._rows(
            "SELECT step, SUM(llm_calls) AS calls, SUM(prompt_tokens) AS tokens, COUNT(*) AS n "
            "FROM decisions WHERE run_id = ? GROUP BY step", (run_id,),
        )
        return {r["step"]: {"calls": r["calls"], "prompt_tokens": r["tokens"], "decisions": r["n"]} for r in rows}

    # -- runs ---------------------------------------------------------------------------------
    def start_run(self, run_id: str) -> None:
        """Record a run's start (idempotent)."""
        self._write([("INSERT INTO runs VALUES (?, ?, NULL, NULL) "
                      "ON CONFLICT(run_id) DO NOTHING", (run_id, time.time()))])

    def finish_run(self, run_id: str, report: dict[str, Any]) -> None:
        """Store a run's final report."""
        self._write([("INSERT INTO runs VALUES (?, ?, NULL, NULL) "
                      "ON CONFLICT(run_id) DO NOTHING", (run_id, time.time())),
                     ("UPDATE runs SET finished = ?, report = ? WHERE run_id = ?",
                      (time.time(), json.dumps(report, ensure_ascii=False), run_id))])

    def reports(self, limit: int = 20) -> list[dict[str, Any]]:
        """The reports of the last ``limit`` finished runs, newest first."""
        rows = self._rows("SELECT report FROM runs WHERE report IS NOT NULL ORDER BY finished DESC LIMIT ?", (limit,))
        return [json.loads(row["report"]) for row in rows]

    def run(self, run_id: str) -> dict[str, Any] | None:
        """A run's row with its report decoded."""
        rows = self._rows("SELECT * FROM runs WHERE run_id = ?", (run_id,))
        if not rows:
            return None
        row = dict(rows[0])
        row["report"] = json.loads(row["report"]) if row["report"] else None
        return row
