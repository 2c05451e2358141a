"""The graph's query index: graph.json's nodes, edges and entity names in SQLite (``graph.sqlite``).

A writer keeps the whole graph in memory and saves graph.json whole; every save also brings this
index up to date, from what the graph journaled since the last save (or whole, when the index was
not at the state the writer loaded). A question then reads only the nodes it visits
(``stored.StoredGraph``) instead of loading the graph, so a cold question costs about the same on a
shelf of books as on one file.

The index is derived and never trusted blindly: a reader uses it only when it is stamped with at
least the workspace's generation and with graph.json's size; otherwise (a crash between the two
writes, a damaged or replaced graph.json, a workspace written by an older version) the reader loads
graph.json whole, as before, and the next save rebuilds the index.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from karaka.store.atomic import UMASK
from karaka.store.damage import DiskFull, is_disk_full
from karaka.store.embedded.graph import KnowledgeGraph
from karaka.store.embedded.journal import JournaledGraph
from karaka.store.resolver import aliases, entity_name, given_name, is_pronoun, mention_key, named_in, normalize_name
from karaka.store.schema import KARAKA_RELATIONS, SUBJECT_RELATIONS

log = logging.getLogger("karaka.index")

INDEX_FILE = "graph.sqlite"
VERSION = 2
"""The index's layout; an index of another layout is not read, and the next save rebuilds it."""
NAME, MENTION, ALIAS, GIVEN = 0, 1, 2, 3
"""Kinds of rows in ``names``: an entity's own key, a mention written to it, an alias (name tail), its first name."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS nodes (id TEXT PRIMARY KEY, type TEXT NOT NULL, doc_id TEXT, seq INTEGER,
                                  verb TEXT, attrs BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS nodes_doc ON nodes (doc_id, seq);
CREATE INDEX IF NOT EXISTS nodes_verb ON nodes (verb) WHERE verb IS NOT NULL;
CREATE INDEX IF NOT EXISTS nodes_type ON nodes (type);
CREATE TABLE IF NOT EXISTS edges (source TEXT NOT NULL, target TEXT NOT NULL, relation TEXT NOT NULL,
                                  attrs BLOB NOT NULL, UNIQUE (source, relation, target));
CREATE INDEX IF NOT EXISTS edges_in ON edges (target, relation);
CREATE TABLE IF NOT EXISTS names (key TEXT NOT NULL, entity TEXT NOT NULL, kind INTEGER NOT NULL,
                                  name TEXT, source TEXT, relation TEXT);
CREATE INDEX IF NOT EXISTS names_key ON names (key, kind);
CREATE INDEX IF NOT EXISTS names_entity ON names (entity);
CREATE INDEX IF NOT EXISTS names_source ON names (source);
"""


def stamp(root: Path) -> tuple[int, int] | None:
    """(generation, graph.json size) the index was written for; None when there is none (or of another layout)."""
    path = root / INDEX_FILE
    if not path.exists():
        return None
    try:
        rows = dict(_query(path, "SELECT key, value FROM meta"))
        if rows.get("version") != str(VERSION):
            return None
        return int(rows["generation"]), int(rows["graph_size"])
    except (sqlite3.Error, KeyError, ValueError) as exc:
        log.warning("%s unreadable (%s): questions load graph.json instead; the next save rebuilds it", path, exc)
        return None


def damaged(root: Path) -> bool:
    """Whether the index exists and fails SQLite's own check (a removed index is rebuilt by the next save)."""
    path = root / INDEX_FILE
    if not path.exists():
        return False
    try:
        return bool(_query(path, "PRAGMA quick_check")[0][0] != "ok")
    except sqlite3.DatabaseError:
        return True


def _query(path: Path, sql: str) -> list[Any]:
    """The rows of one statement on the index, opened read-only for it."""
    db = connect(path, read_only=True)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def held_generation(root: Path, graph_file: Path) -> int | None:
    """The generation the index holds ``graph_file`` at; None when it holds another graph.json or none.

    A reader at generation G may read the index when this is at least G (a writer stamps the index
    before it bumps the generation); a writer that loaded at G saves only its changes when it is G.
    """
    found = stamp(root)
    try:
        return found[0] if found is not None and found[1] == graph_file.stat().st_size else None
    except OSError:
        return None


def save(root: Path, graph: KnowledgeGraph, generation: int, graph_size: int, whole: bool) -> None:
    """Bring the index to ``graph`` (saved at ``generation``, graph.json ``graph_size`` bytes long).

    ``whole`` rebuilds it in a new file that replaces the old one; otherwise only what ``graph``
    journaled is written, in one transaction. A disk that fills up raises :class:`DiskFull`.
    """
    path = root / INDEX_FILE
    try:
        if whole or not isinstance(graph, JournaledGraph):
            _rebuild(path, graph, generation, graph_size)
        else:
            _apply(path, graph, generation, graph_size)
    except (OSError, sqlite3.OperationalError) as exc:
        if is_disk_full(exc):
            raise DiskFull(path) from exc
        raise


def connect(path: Path, read_only: bool = False) -> sqlite3.Connection:
    """The index's SQLite database (read-only and immutable where its folder cannot be written)."""
    if read_only:
        immutable = "&immutable=1" if not os.access(path.parent, os.W_OK) else ""
        uri = f"file:{quote(str(path))}?mode=ro{immutable}"
        return sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=30)
    return sqlite3.connect(path, check_same_thread=False, timeout=30, isolation_level=None)


def _rebuild(path: Path, graph: KnowledgeGraph, generation: int, graph_size: int) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        _write_index(tmp, graph, generation, graph_size)
    except BaseException:  # a failed rebuild leaves no half-written file behind
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)


def _write_index(tmp: Path, graph: KnowledgeGraph, generation: int, graph_size: int) -> None:
    db = connect(tmp)
    try:
        os.chmod(tmp, 0o666 & ~UMASK)
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("PRAGMA synchronous = OFF")  # a new file: it is fsynced below before it replaces the old
        db.executescript(SCHEMA)
        db.execute("BEGIN")
        nodes = list(graph._g.nodes(data=True))
        db.executemany("INSERT INTO nodes VALUES (?, ?, ?, ?, ?, ?)", (_node_row(n, a) for n, a in nodes))
        edges = graph._g.edges(keys=True, data=True)  # a view: read twice below
        db.executemany("INSERT INTO edges VALUES (?, ?, ?, ?)", (_edge_row(s, t, k, a) for s, t, k, a in edges))
        db.executemany("INSERT INTO names VALUES (?, ?, ?, ?, ?, ?)",
                       (row for n, a in nodes if a.get("type") == "Entity" for row in _entity_names(n, a)))
        db.executemany("INSERT INTO names VALUES (?, ?, ?, ?, ?, ?)",
                       (row for s, t, k, a in edges for row in _mention(s, t, k, a)))
        _stamp(db, generation, graph_size)
        db.execute("COMMIT")
    finally:
        db.close()
    with open(tmp, "rb") as handle:
        os.fsync(handle.fileno())


def _apply(path: Path, graph: JournaledGraph, generation: int, graph_size: int) -> None:
    db = connect(path)
    try:
        db.execute("BEGIN IMMEDIATE")
        gone = sorted(graph.removed)
        db.executemany("DELETE FROM nodes WHERE id = ?", ((n,) for n in gone))
        db.executemany("DELETE FROM edges WHERE source = ?", ((n,) for n in gone))
        db.executemany("DELETE FROM edges WHERE target = ?", ((n,) for n in gone))
        db.executemany("DELETE FROM names WHERE entity = ? OR source = ?", ((n, n) for n in gone))
        for source, target, relation in sorted(graph.removed_edges):
            db.execute("DELETE FROM edges WHERE source = ? AND relation = ? AND target = ?", (source, relation, target))
            db.execute("DELETE FROM names WHERE source = ? AND relation = ? AND entity = ?", (source, relation, target))
        for node in graph.dirty_nodes:
            attrs = graph.node(node)
            if attrs is None:
                continue
            db.execute("INSERT INTO nodes VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET type = excluded.type, "
                       "doc_id = excluded.doc_id, seq = excluded.seq, verb = excluded.verb, attrs = excluded.attrs",
                       _node_row(node, attrs))
            if attrs.get("type") == "Entity":
                rows = _entity_names(node, attrs)
                held = db.execute("SELECT key, kind, name FROM names WHERE entity = ? AND kind != ? ORDER BY rowid",
                                  (node, MENTION)).fetchall()
                if held != [(r[0], r[2], r[3]) for r in rows]:  # a changed name: its rows anew
                    db.execute("DELETE FROM names WHERE entity = ? AND kind != ?", (node, MENTION))
                    db.executemany("INSERT INTO names VALUES (?, ?, ?, ?, ?, ?)", rows)
        for source, target, relation in graph.dirty_edges:
            if source not in graph or target not in graph:
                continue
            attrs = graph.edge_attrs(source, target, relation)
            db.execute("INSERT INTO edges VALUES (?, ?, ?, ?) ON CONFLICT (source, relation, target) "
                       "DO UPDATE SET attrs = excluded.attrs", _edge_row(source, target, relation, attrs))
            mention = list(_mention(source, target, relation, attrs))
            held = db.execute("SELECT key, entity, kind, name, source, relation FROM names WHERE source = ? "
                              "AND relation = ? AND entity = ?", (source, relation, target)).fetchall()
            if held != mention:
                db.execute("DELETE FROM names WHERE source = ? AND relation = ? AND entity = ?",
                           (source, relation, target))
                db.executemany("INSERT INTO names VALUES (?, ?, ?, ?, ?, ?)", mention)
        _stamp(db, generation, graph_size)
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    finally:
        db.close()


def _stamp(db: sqlite3.Connection, generation: int, graph_size: int) -> None:
    db.executemany("INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                   [("generation", str(generation)), ("graph_size", str(graph_size)), ("version", str(VERSION))])


def _node_row(node: str, attrs: dict[str, Any]) -> tuple[Any, ...]:
    verb = str(attrs["verb"]).lower() if attrs.get("type") == "Kriya" and attrs.get("verb") else None
    seq = attrs.get("seq") if attrs.get("type") in ("Document", "Kriya") else None
    return node, attrs.get("type"), attrs.get("doc_id"), seq, verb, orjson.dumps(attrs)


def _edge_row(source: str, target: str, relation: str, attrs: dict[str, Any]) -> tuple[Any, ...]:
    return source, target, relation, orjson.dumps({k: v for k, v in attrs.items() if k != "relation"})


def _entity_names(node: str, attrs: dict[str, Any]) -> list[tuple[Any, ...]]:
    """An entity's rows in ``names``: its own key (with its name), its aliases and its first name (as the resolver files them)."""
    name = str(attrs.get("canonical_name") or "")
    key = normalize_name(name)
    if not key or is_pronoun(name):
        return []
    given = [g for g in dict.fromkeys((given_name(name), named_in(name))) if g]  # "Tomas"; "Golan" of "a man named Golan"
    return ([(key, node, NAME, name, None, None)]
            + [(alias, node, ALIAS, None, None, None) for alias in sorted(aliases(name))]
            + [(g, node, GIVEN, None, None, None) for g in given])


def _mention(source: str, target: str, relation: str, attrs: dict[str, Any]) -> Iterator[tuple[Any, ...]]:
    """The row a kāraka edge's surface span adds to ``names`` (none for a pronoun or no span)."""
    span = attrs.get("span")
    if not span or relation not in KARAKA_RELATIONS:
        return
    name = entity_name(str(span), relation not in SUBJECT_RELATIONS)
    if name and not is_pronoun(name):
        yield mention_key(name), target, MENTION, None, source, relation


