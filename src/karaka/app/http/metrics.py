"""Live metrics of a server, in Prometheus' text format at ``GET /metrics``.

What a question and an ingestion run report (their result and report dictionaries) is counted
here as it reaches the HTTP layer, so the library stays quiet. One registry a server, not the
process-wide default: two apps in one process (tests, ``langgraph dev``) do not share counts.
"""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120)


class Metrics:
    """The counters, gauges and histograms of one server."""

    def __init__(self) -> None:
        self.registry = registry = CollectorRegistry()
        self.questions = Counter("karaka_questions", "Questions answered, by status and intent",
                                 ["status", "intent", "retrieval"], registry=registry)
        self.question_seconds = Histogram("karaka_question_seconds", "Time to answer a question, by stage",
                                          ["stage"], buckets=LATENCY_BUCKETS, registry=registry)
        self.question_failures = Counter("karaka_question_failures", "Questions that failed with an error",
                                         registry=registry)
        self.llm_requests = Counter("karaka_llm_requests", "Requests to the LLM, by what asked them",
                                    ["purpose"], registry=registry)
        self.llm_prompt_tokens = Counter("karaka_llm_prompt_tokens", "Prompt tokens sent to the LLM in extraction",
                                         registry=registry)
        self.gsv = Counter("karaka_gsv", "GSV-Retry loop outcomes in ingestion", ["outcome"], registry=registry)
        self.ingested_lines = Counter("karaka_ingested_lines", "Lines ingested", registry=registry)
        self.ingest_failures = Counter("karaka_ingest_failures", "Units that failed and files skipped in ingestion",
                                       ["kind"], registry=registry)
        self.ingest_lines_per_second = Gauge("karaka_ingest_lines_per_second", "Lines per second of the last run",
                                             registry=registry)
        self.runs = Counter("karaka_ingest_runs", "Ingestion runs ended, by status", ["status"], registry=registry)
        self.open_runs = Gauge("karaka_open_runs", "Ingestion runs queued or running", registry=registry)

    def question(self, result: dict[str, Any], seconds: float) -> None:
        """Count a question's result (``stream_query``'s) that took ``seconds``."""
        self.questions.labels(str(result.get("status", "")), str(result.get("intent", "")),
                              str(result.get("retrieval", ""))).inc()
        self.question_seconds.labels("total").observe(seconds)
        for stage, spent in (result.get("timings") or {}).items():
            self.question_seconds.labels(str(stage)).observe(float(spent))
        self.llm_requests.labels("question").inc(int(result.get("llm_calls") or 0))

    def report(self, report: dict[str, Any]) -> None:
        """Count an ingestion report."""
        self.ingested_lines.inc(int(report.get("lines") or 0))
        gsv = report.get("gsv") or {}
        self.gsv.labels("loop").inc(int(gsv.get("loops") or 0))
        self.gsv.labels("accepted").inc(int(gsv.get("accepted") or 0))
        self.gsv.labels("parser_fallback").inc(int(gsv.get("parser_fallbacks") or 0))
        self.gsv.labels("veto").inc(sum(int(v) for v in (gsv.get("structural_vetoes") or {}).values()))
        calls = report.get("llm_calls") or {}
        self.llm_requests.labels("extraction").inc(int(calls.get("extraction") or 0))
        self.llm_requests.labels("post_processing").inc(int(calls.get("post_processing") or 0))
        lines = int(report.get("lines") or 0)
        self.llm_prompt_tokens.inc(float(calls.get("prompt_tokens_per_line_mean") or 0.0) * lines)
        self.ingest_failures.labels("unit").inc(len(report.get("failures") or []))
        self.ingest_failures.labels("file").inc(len(report.get("skipped_files") or []))
        seconds = float(report.get("seconds") or 0.0)
        if lines and seconds:
            self.ingest_lines_per_second.set(lines / seconds)

    def text(self) -> bytes:
        """The exposition text."""
        return bytes(generate_latest(self.registry))


class Timer:
    """Seconds since it was made."""

    def __init__(self) -> None:
        self.began = time.perf_counter()

    def __call__(self) -> float:
        return time.perf_counter() - self.began
