"""`karaka ingest` killed with SIGKILL mid-run resumes with the same command to the same graph."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from tests.fakes import write_doc

pytestmark = pytest.mark.slow  # real processes, servers or databases: not in the fast tier

NAMES = ["Rama", "Sita", "Hanuman", "Ravana", "Lakshmana", "Bharata"]


def _cli(workspace, docs, *extra, window=1):
    return [sys.executable, "-m", "karaka.app.cli", "ingest", str(docs), "--workspace", str(workspace),
            "--llm", "simulated:latency=0.03", "--concurrency", "2", "--window", str(window), *extra]


def _rows(workspace):
    db = workspace / "karaka.db"
    if not db.exists():
        return {}
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as conn:
            return dict(conn.execute("SELECT unit_id, rowid || ':' || seconds FROM results").fetchall())
    except sqlite3.OperationalError:  # schema not created yet
        return {}


def _graph(workspace):
    data = json.loads((workspace / "graph.json").read_text())
    return ({n["id"] for n in data["nodes"]},
            {(e["source"], e["target"], e["key"]) for e in data["edges"]})


@pytest.mark.parametrize("window", [1, 4])  # one line a unit, and the default window
def test_kill_9_then_same_command_resumes_to_the_same_graph(tmp_path, window):
    docs = tmp_path / "docs"
    for d in range(3):
        write_doc(docs, f"book{d}.txt", *(f"{NAMES[i % 6]} gave the gift {d}-{i} to {NAMES[(i + 1) % 6]}."
                                          for i in range(20)))
    killed, reference = tmp_path / "killed", tmp_path / "reference"
    env = {**os.environ, "KARAKA_CONCURRENCY": "2"}

    units = 60 // window
    process = subprocess.Popen(_cli(killed, docs, "--json", window=window), env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while len(_rows(killed)) < units // 5 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    before = _rows(killed)
    assert units // 5 <= len(before) < units, f"kill landed at {len(before)} of {units} units"

    resumed = subprocess.run(_cli(killed, docs, window=window), env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "resuming an interrupted run" in resumed.stdout
    after = _rows(killed)
    assert len(after) == units
    assert {u: after[u] for u in before} == before  # no finished unit was redone (same row, same timing)

    assert subprocess.run(_cli(reference, docs, window=window), env=env, capture_output=True,
                          timeout=300).returncode == 0
    assert _graph(killed) == _graph(reference)
    report = json.loads((killed / "report.json").read_text())
    # the fast path on the parser's candidate: three scores and a verdict a unit
    assert report["lines"] == 60 and report["llm_calls"]["per_line_mean"] == 4.0 / window
