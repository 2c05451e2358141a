"""Question latency while the server ingests over HTTP: on a server thread, and in a child process.

    python benchmarks/serve_latency.py [--docs 40] [--questions 200] [--concurrency 20]

Builds a workspace from the bundled corpus, starts the HTTP app on 127.0.0.1 (uvicorn in this
process), posts an ingest of ``--docs`` generated documents (60 sentences each, parser), and asks
``--questions`` questions at ``--concurrency`` while it runs; prints p50, p95 and the errors for
each way of running the ingest. The same figures with no ingest running are printed first.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import statistics
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from karaka.app.api import create_app  # noqa: E402
from karaka.app.http import runs as runs_module  # noqa: E402
from karaka.app.runner import run_ingest  # noqa: E402
from karaka.config import Context  # noqa: E402
from tests.server_util import serve_in_thread  # noqa: E402

QUESTIONS = ("Who killed Ravana?", "What did Rama give to Lakshmana?", "Where did Ravana take Sita?")


def _corpus(folder: Path, docs: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(docs):
        lines = [f"Merchant {n} sold cloth {k} to the weaver of village {k} after the harvest." for k in range(60)]
        (folder / f"trade{n}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _ask(client: httpx.Client, n: int) -> tuple[float, bool]:
    began = time.perf_counter()
    try:
        ok = client.post("/chat", json={"messages": QUESTIONS[n % len(QUESTIONS)]}).status_code == 200
    except httpx.HTTPError:
        ok = False
    return time.perf_counter() - began, ok


def _measure(url: str, questions: int, concurrency: int, ingest: str | None) -> str:
    with httpx.Client(base_url=url, timeout=120) as client:
        run_id = client.post("/ingest", json={"paths": [ingest]}).json()["run_id"] if ingest else None
        with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
            results = list(pool.map(lambda n: _ask(client, n), range(questions)))
        status = ""
        if run_id:
            while not (run := client.get(f"/runs/{run_id}").json())["finished"]:
                time.sleep(0.5)
            status = f" · run {run['status']}, {run['progress']['done']} units"
    times = sorted(t for t, _ in results)
    p95 = times[int(0.95 * (len(times) - 1))]
    errors = sum(not ok for _, ok in results)
    return f"p50 {statistics.median(times):.2f} s · p95 {p95:.2f} s · errors {errors}/{len(times)}{status}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=40)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=20)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="karaka-latency-"))
    ctx = Context(workspace=str(base / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, Path(str(resources.files("karaka") / "data" / "corpus")))
    for way in ("idle", "thread", "child"):
        folder = base / "root" / way
        _corpus(folder, args.docs)
        runs_module.runs_in_child = (lambda _, child=(way == "child"): child)  # type: ignore[assignment]
        with serve_in_thread(create_app(ctx, ingest_root=base / "root")) as url:
            line = _measure(url, args.questions, args.concurrency, None if way == "idle" else way)
        print(f"{way:>6}: {line}", flush=True)


if __name__ == "__main__":
    main()
