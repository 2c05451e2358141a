"""The PostgreSQL store at scale: worker throughput, traversal latency, database size.

    python benchmarks/store_scale.py [--workers 1,2,4] [--lines 120] [--latency 0.2] [--kriyas 100000]

Starts a throwaway PostgreSQL server on 127.0.0.1 (Debian's binaries; ``tests.pgtemp``).

1. Throughput: for each worker count, a fresh database and that many ``karaka ingest`` processes
   started together on the same generated documents, with a simulated LLM that sleeps
   ``--latency`` seconds per call (``--concurrency 1`` each, so the workers, not threads, overlap
   on waiting). Timed from launch to the last exit, whole processes; the graphs must be identical.
2. Traversal: the synthetic graph of ``traversal_latency.py`` (``--kriyas`` Kriyās) written to the
   store; a fresh process-side replica is loaded from it, then the same plans run against the
   embedded backend and the store. Also: the replica's cold load and the catch-up after another
   writer adds 1,000 Kriyās.
3. Size: the database's growth per ingested line, and per Kriyā of the synthetic graph.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.pgtemp: the throwaway server

import psycopg  # noqa: E402
from traversal_latency import build, plans  # noqa: E402

from karaka.kg.traverse import display, traverse  # noqa: E402
from karaka.models.embeddings import WordLlamaEmbeddings  # noqa: E402
from karaka.store.embedded.workspace import Workspace  # noqa: E402
from karaka.store.postgres.backend import PgStore  # noqa: E402
from karaka.store.resolver import EntityResolver  # noqa: E402
from tests.pgtemp import TempServer  # noqa: E402

NAMES = ["Rama", "Sita", "Hanuman", "Ravana", "Lakshmana", "Bharata"]


def corpus(folder: Path, lines: int, docs: int = 4) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for d in range(docs):
        rows = [f"{NAMES[i % 6]} gave the gift {d}-{i} to {NAMES[(i + 1) % 6]}." for i in range(lines // docs)]
        (folder / f"book{d}.txt").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return folder


def graph_sets(store: PgStore) -> tuple[set, set]:
    with store.reading():
        data = store.graph.to_json()
    return ({n["id"] for n in data["nodes"]}, {(e["source"], e["target"], e["key"]) for e in data["edges"]})


def _vacuumed_size(url: str, store: PgStore) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM FULL")
    return store.size_bytes()


def throughput(server: TempServer, counts: list[int], lines: int, latency: float, work: Path) -> None:
    docs = corpus(work / "docs", lines)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    graphs, base = [], None
    for n in counts:
        url = server.create_db(f"workers{n}")
        probe = PgStore(url, work / f"probe{n}", WordLlamaEmbeddings())
        empty = _vacuumed_size(url, probe)
        started = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-m", "karaka.app.cli", "ingest", str(docs), "--store", url,
                                   "--workspace", str(work / f"w{n}-{i}"), "--llm", f"simulated:latency={latency}",
                                   "--concurrency", "1"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                 for i in range(n)]
        errors = [p.communicate()[1] for p in procs]
        wall = time.perf_counter() - started
        if any(p.returncode for p in procs):
            raise SystemExit(f"a worker failed: {errors}")
        graphs.append(graph_sets(probe))
        grown = probe.size_bytes() - empty
        kept = _vacuumed_size(url, probe) - empty  # what the run leaves, the rows it pruned given back
        probe.close()
        base = base or wall
        print(f"{n} worker(s): {wall:6.1f} s for {lines} lines = {lines / wall:5.2f} lines/s, "
              f"{base / wall:.2f}x one worker; database +{grown / lines / 1024:.1f} KiB per line right after "
              f"the run, {kept / lines / 1024:.1f} KiB per line kept")
    same = all(g == graphs[0] for g in graphs)
    print(f"graphs identical across worker counts: {same} ({len(graphs[0][0])} nodes, {len(graphs[0][1])} edges)")


def timed_plans(ws: Workspace, batch: list[dict]) -> tuple[float, float, int]:
    traverse(ws, batch[0])
    times, found = [], 0
    for plan in batch:
        t = time.perf_counter()
        with ws.reading():  # a store checks its generation before every question
            result = traverse(ws, plan)
            [display(ws, a) for a in result.answers]
            found += bool([ws.graph.node(d) for d in result.documents[:5]])
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))], found


def exact_resolver(ws: Workspace) -> None:
    """Synthetic names ("Person12") would merge by embedding (see traversal_latency): match exactly."""
    ws.resolver = EntityResolver(None)
    for node in ws.graph.nodes_of("Entity"):
        ws.resolver.known(node, ws.graph.node(node)["canonical_name"])  # type: ignore[index]


def traversal(server: TempServer, kriyas: int, queries: int, work: Path) -> None:
    embeddings = WordLlamaEmbeddings()
    url = server.create_db("traversal")
    writer = PgStore(url, work / "writer", embeddings)
    empty = writer.size_bytes()
    exact_resolver(writer)
    embedded = Workspace(tempfile.mkdtemp(), embeddings)
    exact_resolver(embedded)
    facts = build(embedded, kriyas, 5_000, 200, random.Random(7))
    with writer.writing("benchmark"):
        build(writer, kriyas, 5_000, 200, random.Random(7))
        started = time.perf_counter()
        writer.flush()
        saved = time.perf_counter() - started
    size = writer.size_bytes() - empty
    started = time.perf_counter()
    replica = PgStore(url, work / "replica", embeddings)
    loaded = time.perf_counter() - started
    exact_resolver(replica)
    print(f"graph: {kriyas} kriyas, {len(replica.graph)} nodes; saved in {saved:.1f} s, a replica loads in "
          f"{loaded:.1f} s; database {size / 2**20:.0f} MiB = {size / kriyas / 1024:.2f} KiB per Kriyā")
    for kind, batch in plans(facts, random.Random(8), queries).items():
        e50, e95, efound = timed_plans(embedded, batch)
        p50, p95, pfound = timed_plans(replica, batch)
        print(f"{kind:7s} embedded p50 {e50:.2f} ms p95 {e95:.2f} ms found {efound} | "
              f"postgresql p50 {p50:.2f} ms p95 {p95:.2f} ms found {pfound} (of {len(batch)})")
    with writer.writing("more"):
        for k in range(1000):
            doc, line = "late", k + 1
            writer.graph.add_document(doc, line, f"late line {k}", line=line)
            kid = writer.graph.add_kriya(f"{doc}_L{line}", 1, "arrive")
            writer.graph.add_edge(kid, "Person1", "HAS_KARTĀ")
            writer.graph.add_edge(kid, f"{doc}_L{line}", "CITED_IN")
        writer.flush()
    started = time.perf_counter()
    with replica.reading():
        caught = len(replica.graph.kriyas_of("late"))
    print(f"catch-up after another writer added 1,000 Kriyās: {(time.perf_counter() - started) * 1000:.0f} ms "
          f"({caught} seen)")
    for store in (writer, replica, embedded):
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--lines", type=int, default=120)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--kriyas", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--skip", choices=["throughput", "traversal"], help="leave one part out")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the server on kill too
    server = TempServer().start()
    work = Path(tempfile.mkdtemp(prefix="store-scale-"))
    try:
        print(json.dumps({"cpus": os.cpu_count(), "postgres": str(server.bindir)}))
        if args.skip != "throughput":
            throughput(server, [int(n) for n in args.workers.split(",")], args.lines, args.latency, work)
        if args.skip != "traversal":
            traversal(server, args.kriyas, args.queries, work)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
