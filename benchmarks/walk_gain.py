"""What ``karaka.walk`` buys over LangGraph's Pregel on the two runs it walks (the reason it is kept).

    python benchmarks/walk_gain.py [--lines 1000] [--rounds 3]

1. A cold question: a new process answers one question from a parser workspace without a model,
   through the walked query graph (``karaka ask``'s path) and through the LangGraph query graph
   (``run_query(..., direct=False)``), process start to answer, ``--rounds`` times each, in turn.
2. GSV-Retry loops no one watches: ingestion of ``--lines`` lines with the instant simulated model
   (window 1, post-processing off), each loop walked (``loop_steps = direct``) and as a LangGraph
   child (``loop_steps = graph``), in one process each, in turn.

Prints the medians and the answers' and graphs' equality (the walk must change nothing but time).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from ingest_overhead import corpus  # noqa: E402

QUESTION = "What did Rama give to Sita?"
ASK = """
import json, sys, time
start = float(sys.argv[3])
from karaka.app.runner import run_query
from karaka.config import resolve_context
result = run_query(resolve_context({"workspace": sys.argv[1], "llm": "none"}), sys.argv[2], direct=sys.argv[4] == "walk")
print(json.dumps({"seconds": time.time() - start, "answer": result["answer"]}))
"""
INGEST = """
import json, sys, time
from pathlib import Path
from karaka.app.runner import run_ingest
from karaka.config import Context
from karaka.models import load_embeddings
from karaka.nlp import nlp
nlp(); load_embeddings("wordllama", announce=False).embed_query("warm up")
ctx = Context(workspace=sys.argv[2], llm="simulated:score=96", window=1, loop_steps=sys.argv[3], coreference=False,
              metaphors=False, entity_types=False, causality=False, rule_checks=False)
start = time.perf_counter()
run_ingest(ctx, Path(sys.argv[1]))
seconds = time.perf_counter() - start
import hashlib
print(json.dumps({"seconds": seconds, "graph": hashlib.sha256((Path(sys.argv[2]) / "graph.json").read_bytes()).hexdigest()}))
"""


def _run(code: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp())
    corpus(root / "docs", args.lines)
    subprocess.run([str(Path(sys.executable).parent / "karaka"), "ingest", str(root / "docs"), "--workspace",
                    str(root / "parsed"), "--llm", "none", "--json"], check=True, capture_output=True)
    asks: dict[str, list[float]] = {"walk": [], "graph": []}
    answers: dict[str, set[str]] = {"walk": set(), "graph": set()}
    for _ in range(args.rounds):
        for way in asks:
            got = _run(ASK, str(root / "parsed"), QUESTION, str(time.time()), way)
            asks[way].append(got["seconds"])
            answers[way].add(got["answer"])
    ingests: dict[str, list[float]] = {"direct": [], "graph": []}
    sizes: dict[str, set[str]] = {"direct": set(), "graph": set()}
    for n in range(args.rounds):
        for way in ingests:
            got = _run(INGEST, str(root / "docs"), str(root / f"ws-{way}-{n}"), way)
            ingests[way].append(got["seconds"])
            sizes[way].add(got["graph"])
    for way, times in asks.items():
        print(f"cold question, {way}: median {statistics.median(times):.2f} s ({', '.join(f'{t:.2f}' for t in times)})")
    print(f"the same answer both ways: {answers['walk'] == answers['graph'] and len(answers['walk']) == 1}")
    for way, times in ingests.items():
        print(f"ingest {args.lines} lines, loops {way}: median {1000 * statistics.median(times) / args.lines:.2f} ms/line "
              f"({', '.join(f'{t:.1f}' for t in times)} s)")
    print(f"graph.json byte-identical both ways: {sizes['direct'] == sizes['graph'] and len(sizes['direct']) == 1}")


if __name__ == "__main__":
    main()
