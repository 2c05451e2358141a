"""Durable per-unit results, decisions and run reports in one SQLite file."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
  doc_id TEXT PRIMARY KEY, path TEXT NOT NULL, sha256 TEXT NOT NULL,
  n_lines INTEGER NOT NULL, status TEXT NOT NULL, updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS lines (
  doc_id TEXT NOT NULL, line_number INTEGER NOT NULL, text TEXT NOT NULL,
  PRIMARY KEY (doc_id, line_number));
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


class Records:
    """Thread-safe access to the workspace's SQLite records (WAL mode)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._db.close()

    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        with self._lock:
            cur = self._db.execute(sql, args)
            cur.row_factory = sqlite3.Row
            return cur.fetchall()

    def _write(self, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for sql, args in statements:
                    self._db.execute(sql, args)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    # -- documents ----------------------------------------------------------------------------
    def document(self, doc_id: str) -> dict[str, Any] | None:
        """The stored row of a document, or None."""
        rows = self._rows("SELECT * FROM documents WHERE doc_id = ?", (doc_id,))
        return dict(rows[0]) if rows else None

    def documents(self) -> list[dict[str, Any]]:
        """Every stored document row."""
        return [dict(r) for r in self._rows("SELECT * FROM documents ORDER BY doc_id")]

    def put_document(self, doc_id: str, path: str, sha256: str, lines: list[str], status: str) -> None:
        """Replace a document's row, its lines and (when its content changed) its results."""
        old = self.document(doc_id)
        statements: list[tuple[str, tuple[Any, ...]]] = []
        if old is None or old["sha256"] != sha256:
            statements += [
                ("DELETE FROM lines WHERE doc_id = ?", (doc_id,)),
                ("DELETE FROM results WHERE doc_id = ?", (doc_id,)),
                ("DELETE FROM decisions WHERE doc_id = ?", (doc_id,)),
            ]
            statements += [
                ("INSERT INTO lines VALUES (?, ?, ?)", (doc_id, i, text))
                for i, text in enumerate(lines, 1)
            ]
        statements.append((
            "INSERT OR REPLACE INTO documents VALUES (?, ?, ?, ?, ?, ?)",
            (doc_id, path, sha256, len(lines), status, time.time()),
        ))
        self._write(statements)

    def set_status(self, doc_id: str, status: str) -> None:
        """Update a document's status (embedded, extracted, done)."""
        self._write([("UPDATE documents SET status = ?, updated = ? WHERE doc_id = ?",
                      (status, time.time(), doc_id))])

    def remove_document(self, doc_id: str) -> None:
        """Delete everything stored for a document."""
        self._write([
            (f"DELETE FROM {table} WHERE doc_id = ?", (doc_id,))
            for table in ("documents", "lines", "results", "decisions")
        ])

    def lines(self, doc_id: str) -> list[str]:
        """A document's lines in order."""
        rows = self._rows(
            "SELECT text FROM lines WHERE doc_id = ? ORDER BY line_number", (doc_id,)
        )
        return [r["text"] for r in rows]

    def line(self, doc_id: str, line: int) -> str | None:
        """One line's text."""
        rows = self._rows(
            "SELECT text FROM lines WHERE doc_id = ? AND line_number = ?", (doc_id, line)
        )
        return rows[0]["text"] if rows else None

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
        self._write([(
            "INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (unit_id, doc_id, first, last, status, json.dumps(payload, ensure_ascii=False),
             llm_calls, prompt_tokens, attempts, int(fast_path), seconds, run_id),
        )])

    def results(self, doc_ids: list[str] | None = None) -> list[dict[str, Any]]:
        """Unit results, optionally for some documents, ordered by position."""
        if doc_ids is None:
            rows = self._rows("SELECT * FROM results ORDER BY doc_id, first_line, last_line")
        else:
            marks = ",".join("?" * len(doc_ids)) or "''"
            rows = self._rows(
                f"SELECT * FROM results WHERE doc_id IN ({marks}) ORDER BY doc_id, first_line, last_line",
                tuple(doc_ids),
            )
        out = []
        for row in rows:
            item = dict(row)
            item["payload"] = json.loads(item["payload"])
            out.append(item)
        return out

    # -- memoised decisions (post-processing, queries) ----------------------------------------
    def decision(self, key: str) -> dict[str, Any] | None:
        """A memoised decision, or None."""
        rows = self._rows("SELECT payload FROM decisions WHERE key = ?", (key,))
        return json.loads(rows[0]["payload"]) if rows else None

    def put_decision(self, key: str, step: str, doc_id: str | None, payload: Any,
                     llm_calls: int, prompt_tokens: int, run_id: str) -> None:
        """Memoise a decision so a resumed run does not ask the LLM again."""
        self._write([(
            "INSERT OR REPLACE INTO decisions VALUES (?, ?, ?, ?, ?, ?, ?)",
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
        self._write([("INSERT OR IGNORE INTO runs VALUES (?, ?, NULL, NULL)", (run_id, time.time()))])

    def finish_run(self, run_id: str, report: dict[str, Any]) -> None:
        """Store a run's final report."""
        self._write([("UPDATE runs SET finished = ?, report = ? WHERE run_id = ?",
                      (time.time(), json.dumps(report, ensure_ascii=False), run_id))])

    def run(self, run_id: str) -> dict[str, Any] | None:
        """A run's row with its report decoded."""
        rows = self._rows("SELECT * FROM runs WHERE run_id = ?", (run_id,))
        if not rows:
            return None
        row = dict(rows[0])
        row["report"] = json.loads(row["report"]) if row["report"] else None
        return row
