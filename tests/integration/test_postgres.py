"""Many workers, one PostgreSQL store (a real server on 127.0.0.1): claims, kill -9, errors, migrate.

The reference is always the embedded directory workspace built by one process from the same
documents; a store's graph must equal it node for node and edge for edge.
"""

import json
import os
import signal
import subprocess
import sys
import time

import psycopg
import pytest

from karaka.models.embeddings import WordLlamaEmbeddings
from karaka.store.postgres.backend import PgStore
from tests.fakes import write_doc

pytestmark = pytest.mark.slow  # real processes, servers or databases: not in the fast tier

NAMES = ["Rama", "Sita", "Hanuman", "Ravana", "Lakshmana", "Bharata"]
ENV = {**os.environ, "KARAKA_CONCURRENCY": "2"}


def _docs(folder, names, lines=12):
    for d in names:
        k = int(d[-1])
        write_doc(folder, f"{d}.txt", *(f"{NAMES[i % 6]} gave the gift {k}-{i} to {NAMES[(i + 1) % 6]}."
                                       for i in range(lines)))
    return folder


def _cli(workspace, docs, *extra, store=None, latency="0.05"):
    command = [sys.executable, "-m", "karaka.app.cli", "ingest", str(docs), "--workspace", str(workspace),
               "--llm", f"simulated:latency={latency}", "--concurrency", "2", "--window", "1", *extra]
    return command + (["--store", store] if store else [])


def _graph_of_store(url, tmp_path):
    store = PgStore(url, tmp_path / "reader", WordLlamaEmbeddings())
    try:
        with store.reading():
            data = store.graph.to_json()
    finally:
        store.close()
    return _sets(data)


def _graph_of_dir(workspace):
    return _sets(json.loads((workspace / "graph.json").read_text()))


def _sets(data):
    nodes = {n["id"]: n.get("type") for n in data["nodes"]}
    edges = {(e["source"], e["target"], e["key"]) for e in data["edges"]}
    return nodes, edges


def _inserted_results(url, table="results"):
    """Rows ever inserted into a table (a unit extracted twice, or a decision asked twice, is inserted twice)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        return conn.execute("SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = %s", (table,)).fetchone()[0]


def _count(url, table):
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def _stored_units(url):
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            return conn.execute("SELECT count(*) FROM results").fetchone()[0]
    except psycopg.Error:  # tables not made yet
        return 0


def _reference(tmp_path, *folders):
    ref = tmp_path / "reference"
    for folder in folders:
        done = subprocess.run(_cli(ref, folder, latency="0"), env=ENV, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    return _graph_of_dir(ref)


def _wait_stats_flushed(url, expected, seconds=10.0, table="results"):
    deadline = time.monotonic() + seconds
    while _inserted_results(url, table) < expected and time.monotonic() < deadline:
        time.sleep(0.2)
    return _inserted_results(url, table)


def _runs_in_results(url):
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute("SELECT count(DISTINCT run_id) FROM results").fetchone()[0]


def test_two_workers_on_the_same_documents_share_the_units(tmp_path, pg_url):
    docs = _docs(tmp_path / "docs", ["book0", "book1"], lines=20)
    workers = [subprocess.Popen(_cli(tmp_path / f"w{i}", docs, "--json", store=pg_url), env=ENV,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(2)]
    outs = [w.communicate(timeout=300) for w in workers]
    assert [w.returncode for w in workers] == [0, 0], [e[-2000:] for _, e in outs]
    assert _stored_units(pg_url) == 40
    assert _wait_stats_flushed(pg_url, 40) == 40  # no unit was extracted (and stored) twice
    assert _runs_in_results(pg_url) == 2  # both workers extracted some of them
    decided = _count(pg_url, "decisions")  # entity types (the names recur in both books) and causes
    assert decided > 12 and _wait_stats_flushed(pg_url, decided, table="decisions") == decided  # none asked twice
    with psycopg.connect(pg_url, autocommit=True) as conn:  # finished runs keep only their newest checkpoint
        per_thread = conn.execute("SELECT thread_id, count(*) FROM checkpoints GROUP BY thread_id").fetchall()
        orphans = conn.execute("SELECT count(*) FROM checkpoint_blobs b WHERE NOT EXISTS (SELECT 1 FROM checkpoints c "
                               "WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns AND "
                               "c.checkpoint -> 'channel_versions' ->> b.channel = b.version)").fetchone()[0]
    assert len(per_thread) == 2 and {n for _, n in per_thread} == {1} and orphans == 0
    calls = [json.loads(out)["llm_calls"]["extraction"] for out, _ in outs]
    assert calls[0] == calls[1] == 40 * 4  # each report sums the whole run's stored units
    assert _graph_of_store(pg_url, tmp_path) == _reference(tmp_path, docs)


def test_two_workers_on_different_documents(tmp_path, pg_url):
    first, second = _docs(tmp_path / "first", ["book0"]), _docs(tmp_path / "second", ["book1"])
    workers = [subprocess.Popen(_cli(tmp_path / f"w{i}", docs, store=pg_url), env=ENV, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True) for i, docs in enumerate((first, second))]
    errors = [w.communicate(timeout=300)[1] for w in workers]
    assert [w.returncode for w in workers] == [0, 0], errors
    assert _graph_of_store(pg_url, tmp_path) == _reference(tmp_path, first, second)


def test_a_worker_killed_mid_run_leaves_its_units_to_the_rerun(tmp_path, pg_url):
    docs = _docs(tmp_path / "docs", ["book0", "book1"], lines=15)
    victim = subprocess.Popen(_cli(tmp_path / "w0", docs, store=pg_url), env=ENV, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while _stored_units(pg_url) < 6 and time.monotonic() < deadline and victim.poll() is None:
        time.sleep(0.05)
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=30)
    killed_at = _stored_units(pg_url)
    assert 6 <= killed_at < 30, f"kill landed at {killed_at} of 30 units"

    survivor = subprocess.run(_cli(tmp_path / "w1", docs, store=pg_url), env=ENV, capture_output=True, text=True,
                              timeout=300)  # a second worker takes over the killed worker's claims
    assert survivor.returncode == 0, survivor.stderr
    rerun = subprocess.run(_cli(tmp_path / "w0", docs, store=pg_url), env=ENV, capture_output=True, text=True,
                           timeout=300)  # the killed command, run again, resumes its checkpoint and finds it done
    assert rerun.returncode == 0, rerun.stderr
    assert _stored_units(pg_url) == 30
    redone = _wait_stats_flushed(pg_url, 30) - 30  # PostgreSQL counts the inserts of the transaction the kill
    assert 0 <= redone <= 2  # aborted: at most the victim's two units in flight (--concurrency 2), never one it stored
    assert _graph_of_store(pg_url, tmp_path) == _reference(tmp_path, docs)


def test_servers_see_new_documents_without_a_restart(tmp_path, pg_url):
    reader = PgStore(pg_url, tmp_path / "server", WordLlamaEmbeddings())
    try:
        with reader.reading():
            assert reader.graph.doc_ids() == []
        docs = _docs(tmp_path / "docs", ["book0"], lines=3)
        done = subprocess.run(_cli(tmp_path / "w", docs, store=pg_url, latency="0"), env=ENV, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        with reader.reading():  # caught up from the rows stamped after its generation
            assert reader.graph.doc_ids() == ["book0"] and len(reader.vectors) == 3
            assert reader.resolver.lookup("Rama") == "Rama"
        removed = subprocess.run([sys.executable, "-m", "karaka.app.cli", "remove", "book0", "--workspace",
                                  str(tmp_path / "w"), "--store", pg_url], capture_output=True, text=True, timeout=120)
        assert removed.returncode == 0, removed.stderr
        with reader.reading():  # and the removal, through its tombstones
            assert reader.graph.doc_ids() == [] and len(reader.vectors) == 0 and "Rama" not in reader.graph
    finally:
        reader.close()


def test_migrate_copies_a_directory_workspace(tmp_path, pg_url):
    docs = _docs(tmp_path / "docs", ["book0"], lines=4)
    ref = tmp_path / "dir"
    assert subprocess.run(_cli(ref, docs, latency="0"), env=ENV, capture_output=True, timeout=300).returncode == 0
    moved = subprocess.run([sys.executable, "-m", "karaka.app.cli", "migrate", "--from", str(ref), "--to", pg_url],
                           capture_output=True, text=True, timeout=120)
    assert moved.returncode == 0, moved.stderr
    assert "4 lines" in moved.stdout and "4 results" in moved.stdout
    assert _graph_of_store(pg_url, tmp_path) == _graph_of_dir(ref)
    again = subprocess.run([sys.executable, "-m", "karaka.app.cli", "migrate", "--from", str(ref), "--to", pg_url],
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 2 and "already holds documents" in again.stderr
    asked = subprocess.run([sys.executable, "-m", "karaka.app.cli", "ask", "Who gave the gift 0-0 to Sita?",
                            "--workspace", str(tmp_path / "other"), "--store", pg_url, "--llm", "none", "--json"],
                           capture_output=True, text=True, timeout=120)
    assert asked.returncode == 0, asked.stderr
    assert json.loads(asked.stdout)["answer"].startswith("Rama") or "Rama" in json.loads(asked.stdout)["answer"]
    exported = subprocess.run([sys.executable, "-m", "karaka.app.cli", "export", "--format", "json", "--workspace",
                               str(tmp_path / "other"), "--store", pg_url, "--output", str(tmp_path / "g.json")],
                              capture_output=True, text=True, timeout=120)
    assert exported.returncode == 0, exported.stderr
    assert _sets(json.loads((tmp_path / "g.json").read_text())) == _graph_of_dir(ref)


@pytest.mark.parametrize(("change", "message"), [
    ({"password": "wrong"}, "wrong user or password"),
    ({"db": "nosuchdb"}, "the database does not exist"),
    ({"port": 1}, "no server answers there"),
])
def test_connection_errors_are_plain_messages(tmp_path, pg_server, change, message):
    url = pg_server.url(change.get("db", "postgres"), change.get("password", "karaka-test"))
    if "port" in change:
        url = url.replace(f":{pg_server.port}/", ":1/")
    docs = _docs(tmp_path / "docs", ["book0"], lines=2)
    done = subprocess.run(_cli(tmp_path / "w", docs, store=url), env=ENV, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
    assert "karaka-test" not in done.stderr  # the password is never printed


def test_a_server_restart_mid_run_is_reported_and_resumable(tmp_path, pg_server, pg_url):
    docs = _docs(tmp_path / "docs", ["book0", "book1"], lines=15)
    run = subprocess.Popen(_cli(tmp_path / "w", docs, store=pg_url), env=ENV, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while _stored_units(pg_url) < 6 and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.05)
    pg_server.restart()
    _, stderr = run.communicate(timeout=300)
    assert "Traceback" not in stderr
    assert run.returncode == 0 or ("run the same command again to resume" in stderr and run.returncode == 2), stderr
    again = subprocess.run(_cli(tmp_path / "w", docs, store=pg_url), env=ENV, capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 0, again.stderr
    assert _graph_of_store(pg_url, tmp_path) == _reference(tmp_path, docs)


def test_a_worker_sees_which_units_others_hold_or_finished(tmp_path, pg_url):
    embeddings = WordLlamaEmbeddings()
    one, other = PgStore(pg_url, tmp_path / "a", embeddings), PgStore(pg_url, tmp_path / "b", embeddings)
    try:
        units = ["doc:1-1", "doc:2-2", "doc:3-3", "doc:4-4"]
        other.records.put_result("doc:4-4", "doc", 4, 4, "golden", {"kriyas": []}, llm_calls=0, prompt_tokens=0,
                                 attempts=0, fast_path=False, seconds=0.0, run_id="r")
        with one.claim(units[:2]) as mine:
            assert mine == units[:2]
            assert one.taken_units(units) == {"doc:4-4"}  # its own claims are not "taken"
            assert other.taken_units(units) == {"doc:1-1", "doc:2-2", "doc:4-4"}
            with other.claim(units) as theirs:
                assert theirs == ["doc:3-3", "doc:4-4"]  # the claim itself skips what another holds
        assert other.taken_units(units) == {"doc:4-4"}  # released with the block
    finally:
        one.close()
        other.close()
