"""PostgreSQL plumbing: connections with clear errors, advisory locks, and the records on a server.

``psycopg`` (an optional dependency, the ``postgres`` extra) is imported only when a
``postgresql://`` store is opened.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from karaka.store.embedded.records import BOOK_COLUMNS, PLACE_COLUMNS, Records
from karaka.store.embedded.records import SCHEMA as RECORDS_SCHEMA

log = logging.getLogger("karaka.postgres")
RECONNECT_SECONDS = 15.0
WAIT_NOTICE_SECONDS = 5.0

# The records tables are karaka.db's (floats as DOUBLE PRECISION), then the graph, vectors and failures.
SCHEMA = RECORDS_SCHEMA.replace(" REAL", " DOUBLE PRECISION") + """
INSERT INTO meta VALUES ('generation', '0') ON CONFLICT (key) DO NOTHING;
INSERT INTO meta VALUES ('schema', '1') ON CONFLICT (key) DO NOTHING;
CREATE TABLE IF NOT EXISTS kg_nodes (
  id TEXT PRIMARY KEY, type TEXT NOT NULL CHECK (type IN ('Document', 'Kriya', 'Entity')),
  doc_id TEXT, verb TEXT, attrs JSONB NOT NULL, gen BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS kg_nodes_doc ON kg_nodes(doc_id);
CREATE INDEX IF NOT EXISTS kg_nodes_verb ON kg_nodes(lower(verb)) WHERE type = 'Kriya';
CREATE INDEX IF NOT EXISTS kg_nodes_gen ON kg_nodes(gen);
CREATE TABLE IF NOT EXISTS kg_edges (
  source TEXT NOT NULL REFERENCES kg_nodes(id) ON DELETE CASCADE,
  target TEXT NOT NULL REFERENCES kg_nodes(id) ON DELETE CASCADE,
  relation TEXT NOT NULL, attrs JSONB NOT NULL, gen BIGINT NOT NULL,
  PRIMARY KEY (source, relation, target));
CREATE INDEX IF NOT EXISTS kg_edges_target ON kg_edges(target, relation);
CREATE INDEX IF NOT EXISTS kg_edges_gen ON kg_edges(gen);
CREATE TABLE IF NOT EXISTS kg_removed (gen BIGINT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS kg_removed_gen ON kg_removed(gen);
CREATE TABLE IF NOT EXISTS line_vectors (
  doc_id TEXT NOT NULL, seq INTEGER NOT NULL, vec BYTEA NOT NULL, gen BIGINT NOT NULL,
  PRIMARY KEY (doc_id, seq));
CREATE INDEX IF NOT EXISTS line_vectors_gen ON line_vectors(gen);
CREATE TABLE IF NOT EXISTS failures (id BIGSERIAL PRIMARY KEY, record TEXT NOT NULL);
""" + "".join(f"ALTER TABLE lines ADD COLUMN IF NOT EXISTS {column};\n" for column in PLACE_COLUMNS + BOOK_COLUMNS)
# (a database made before sentences had pages, sections and chapters gains the columns)


class StoreError(RuntimeError):
    """The database could not be reached or refused us; the message says what to do."""


def redact(url: str, mark: str = ":***") -> str:
    """The URL with its password shown as ``***`` (for messages), or left out (``mark=""``)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}{mark}@{host}"))


def lock_key(name: str) -> int:
    """A signed 64-bit advisory-lock key for a name."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big", signed=True)


SETUP_LOCK = lock_key("karaka:setup")


def _explain(url: str, exc: Exception) -> StoreError:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    where = redact(url)
    if "password authentication failed" in text or "no password supplied" in text:
        hint = "wrong user or password (put the password in PGPASSWORD or ~/.pgpass)"
    elif "does not exist" in text and "database" in text:
        hint = "the database does not exist: create it (createdb) first"
    elif "Connection refused" in text or "could not connect" in text or "timeout" in text.lower():
        hint = "no server answers there: is PostgreSQL running, and are host and port right?"
    else:
        hint = "the server refused the request"
    return StoreError(f"PostgreSQL store {where}: {hint} ({text})")


def connect(url: str, *, autocommit: bool = True, **kwargs: Any) -> Any:
    """A psycopg connection, or a StoreError that says what is wrong."""
    try:
        import psycopg
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise StoreError("a postgresql:// store needs psycopg: pip install 'karaka[postgres]'") from exc
    try:
        return psycopg.Connection.connect(url, autocommit=autocommit, connect_timeout=10, **kwargs)
    except psycopg.Error as exc:
        raise _explain(url, exc) from None


class Database:
    """One shared connection (statements serialised by a lock) that reconnects after a server restart.

    A statement that fails because the connection dropped is retried once on a new connection,
    unless it ran inside a transaction (the caller's transaction failed as a whole and is reported).
    """

    def __init__(self, url: str):
        self.url = url
        self.lock = threading.RLock()
        self.conn = connect(url)
        self._in_tx = 0

    def _reconnect(self, cause: Exception) -> None:
        deadline = time.monotonic() + RECONNECT_SECONDS
        log.warning("PostgreSQL store %s: connection lost (%s); reconnecting", redact(self.url), cause)
        while True:
            try:
                self.conn = connect(self.url)
                return
            except StoreError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def rows(self, sql: str, args: tuple[Any, ...] | list[Any] = (), named: bool = False) -> list[Any]:
        """Run one statement (``%s`` placeholders); its rows as tuples, or as dicts when ``named``."""
        import psycopg
        from psycopg.rows import dict_row, tuple_row

        with self.lock:
            for attempt in (1, 2):
                try:
                    with self.conn.cursor(row_factory=dict_row if named else tuple_row) as cur:
                        cur.execute(sql, args)
                        return cur.fetchall() if cur.description else []
                except psycopg.OperationalError as exc:
                    if self._in_tx or attempt == 2 or not self.conn.closed:
                        raise self._failed(exc) from None
                    self._reconnect(exc)
            raise AssertionError("unreachable")  # pragma: no cover

    def _failed(self, exc: Exception) -> StoreError:
        return StoreError(f"PostgreSQL store {redact(self.url)}: {str(exc).strip() or type(exc).__name__}; "
                          "nothing of the failed step was kept: run the same command again to resume")

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """A transaction on the shared connection (other threads wait); yields a cursor."""
        import psycopg

        with self.lock:
            if self.conn.closed:
                self._reconnect(RuntimeError("closed"))
            self._in_tx += 1
            try:
                with self.conn.transaction(), self.conn.cursor() as cur:
                    yield cur
            except psycopg.OperationalError as exc:
                raise self._failed(exc) from None
            finally:
                self._in_tx -= 1

    def close(self) -> None:
        """Close the connection."""
        with self.lock:
            self.conn.close()


class AdvisoryLocks:
    """Session-level advisory locks on a connection of their own.

    PostgreSQL drops them when the holding process dies (``kill -9`` included), so a dead worker's
    claims and slots become free again without leases or clean-up.
    """

    def __init__(self, url: str):
        self.url = url
        self._conn = connect(url)
        self._mutex = threading.Lock()
        self._depth: dict[int, int] = {}

    def try_lock(self, key: int) -> bool:
        """Take a lock if free (re-entrant within this process)."""
        import psycopg

        with self._mutex:
            if self._depth.get(key):
                self._depth[key] += 1
                return True
            try:
                got = bool(self._conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0])
            except psycopg.OperationalError as exc:
                if self._depth:  # the server forgot what we held: another worker may hold it now
                    raise StoreError(f"PostgreSQL store {redact(self.url)}: connection lost while holding "
                                     f"claims ({exc}); run the same command again to resume") from None
                self._conn = connect(self.url)
                got = bool(self._conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0])
            if got:
                self._depth[key] = 1
            return got

    def unlock(self, key: int) -> None:
        """Give one hold of a lock back."""
        with self._mutex:
            depth = self._depth.get(key, 0)
            if depth > 1:
                self._depth[key] = depth - 1
                return
            self._depth.pop(key, None)
            if depth == 1 and not self._conn.closed:
                try:
                    self._conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
                except Exception:  # noqa: BLE001 - a dropped connection has freed the lock already
                    log.warning("advisory unlock failed on a dropped connection; the server freed it")

    def held_elsewhere(self) -> set[int]:
        """Advisory-lock keys other sessions hold now (a bigint key shows as classid, objid)."""
        with self._mutex:
            rows = self._conn.execute(
                "SELECT (classid::bigint << 32) | objid::bigint FROM pg_locks WHERE locktype = 'advisory' "
                "AND objsubid = 1 AND granted AND pid <> pg_backend_pid()").fetchall()
        return {v - (1 << 64) if v >= 1 << 63 else v for (v,) in rows}

    def wait(self, key: int, what: str, on_wait: Callable[[str], None] | None = None,
             timeout: float | None = None) -> None:
        """Block (polling, with notices) until the lock is ours."""
        started = time.monotonic()
        noticed = 0.0
        while not self.try_lock(key):
            waited = time.monotonic() - started
            if timeout is not None and waited >= timeout:
                raise TimeoutError(f"{what}: still held by another process after {timeout:.0f} s")
            if on_wait is not None and (not noticed or waited - noticed >= WAIT_NOTICE_SECONDS):
                on_wait(f"waiting for {what} (held by another process)")
                noticed = waited or 1e-9
            time.sleep(0.02)

    @contextmanager
    def hold(self, key: int, what: str, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
        """Hold a lock for a block."""
        self.wait(key, what, on_wait)
        try:
            yield
        finally:
            self.unlock(key)

    def close(self) -> None:
        """Close the connection (which frees every lock it holds)."""
        with self._mutex:
            self._conn.close()
            self._depth.clear()


class _Cursor:
    """Runs the records' ``?``-placeholder SQL on a psycopg cursor."""

    def __init__(self, cur: Any):
        self.cur = cur

    def execute(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        return self.cur.execute(sql.replace("?", "%s"), args)

    def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> Any:
        return self.cur.executemany(sql.replace("?", "%s"), rows) if rows else None


class PgRecords(Records):
    """The records (documents, sentences, unit results, decisions, runs) in PostgreSQL tables."""

    def __init__(self, db: Database):  # noqa: D107 - the SQLite constructor does not apply
        self.db = db
        self.path = redact(db.url)  # type: ignore[assignment]
        self._lock = db.lock

    def close(self) -> None:
        """The store closes the shared connection."""

    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        return self.db.rows(sql.replace("?", "%s"), args, named=True)

    @contextmanager
    def _transaction(self) -> Iterator[Any]:
        with self.db.transaction() as cur:
            yield _Cursor(cur)

    def bump_generation(self) -> int:
        """Record one more save; returns the new generation."""
        rows = self.db.rows("UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'generation' "
                            "RETURNING value::bigint")
        return int(rows[0][0])
