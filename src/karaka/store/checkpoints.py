"""LangGraph checkpointers for a store: SQLite in a workspace directory, ``PostgresSaver`` in a database."""

from __future__ import annotations

import sqlite3
import threading
import time
from typing import Any

from karaka.store.embedded.workspace import Workspace

_savers: dict[str, Any] = {}
_lock = threading.Lock()


def open_saver(store: Workspace) -> Any:
    """The store's checkpointer, one per process and location."""
    with _lock:
        saver = _savers.get(store.location)
        if saver is None:
            saver = _savers[store.location] = _postgres(store) if store.kind == "postgresql" else _sqlite(store)
        return saver


def _sqlite(store: Workspace) -> Any:
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(str(store.checkpoints_path), check_same_thread=False, timeout=30)
    _wal(conn)
    return SqliteSaver(conn)


def _postgres(store: Any) -> Any:
    """A pool that checks each connection before use, so a server restart costs one failed step."""
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    from karaka.store.postgres.db import SETUP_LOCK, connect

    connect(store.url).close()  # a clear message for a wrong URL, before the pool retries in the background
    pool = ConnectionPool(store.url, min_size=1, max_size=4, open=True, check=ConnectionPool.check_connection,
                          kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row})
    saver = PostgresSaver(pool)  # type: ignore[arg-type]  # rows are dicts (kwargs above)
    with store.locks.hold(SETUP_LOCK, "checkpoint set-up"):  # its migrations race between processes
        saver.setup()
    return saver


def _wal(conn: sqlite3.Connection, seconds: float = 30.0) -> None:
    """WAL mode and a busy timeout; switching to WAL waits while another process holds the file."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            conn.execute("PRAGMA busy_timeout=30000")
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def close_savers() -> None:
    """Close every cached checkpointer connection (tests, shutdown)."""
    with _lock:
        for saver in _savers.values():
            if isinstance(saver.conn, sqlite3.Connection):
                try:
                    saver.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # fold the log into the file
                except sqlite3.Error:
                    pass
            saver.conn.close()
        _savers.clear()


def prune_thread(saver: Any, thread_id: str) -> None:
    """Keep only a thread's newest checkpoint (a conversation's last turns, a finished run's report).

    Resuming needs only the newest; the steps before it are dropped, with their pending writes and
    (in PostgreSQL) the channel values no remaining checkpoint refers to.
    """
    latest = saver.get_tuple({"configurable": {"thread_id": thread_id}})
    if latest is None:
        return
    keep = latest.config["configurable"]["checkpoint_id"]
    if isinstance(saver.conn, sqlite3.Connection):
        with saver.lock, saver.conn:
            saver.conn.execute("DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id != ?", (thread_id, keep))
            saver.conn.execute("DELETE FROM writes WHERE thread_id = ? AND checkpoint_id != ?", (thread_id, keep))
        return
    with saver.conn.connection() as conn, conn.transaction():
        conn.execute("DELETE FROM checkpoint_writes WHERE thread_id = %s AND checkpoint_id != %s", (thread_id, keep))
        conn.execute("DELETE FROM checkpoints WHERE thread_id = %s AND checkpoint_id != %s", (thread_id, keep))
        conn.execute("DELETE FROM checkpoint_blobs b WHERE b.thread_id = %s AND NOT EXISTS ("
                     "SELECT 1 FROM checkpoints c WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns"
                     " AND c.checkpoint -> 'channel_versions' ->> b.channel = b.version)", (thread_id,))
