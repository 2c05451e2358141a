"""Rendering for people: the CLI's and the notebook's ✅/❌ lines, progress, reports and answers.

The library never prints; only the CLI and notebook code call these.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from karaka.store.ids import cite_of

PROGRESS_EVERY = 5.0  # seconds between progress lines when stdout is not a terminal


class Progress:
    """Progress from the graph's custom events: a rich bar on a terminal, a line every few seconds otherwise."""

    def __init__(self, interactive: bool | None = None) -> None:
        self.interactive = sys.stdout.isatty() if interactive is None else interactive
        self.failed = 0
        self.bar: Any = None
        self.task: Any = None
        self.started = time.monotonic()
        self.last_line = 0.0
        if self.interactive:
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
            from rich.progress import Progress as RichProgress

            self.bar = RichProgress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                    TextColumn("{task.fields[rate]} units/s · failures {task.fields[failed]}"),
                                    TimeElapsedColumn(), TimeRemainingColumn(), transient=False)

    def _say(self, text: str) -> None:
        if self.bar is not None:
            self.bar.console.print(text)
        else:
            print(text, flush=True)

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind == "stage":
            details = ", ".join(f"{k}={v}" for k, v in event.items() if k not in ("event", "stage"))
            self._say(f"✅ {event['stage']}: {details}")
        elif kind == "ocr":
            self._say(f"   OCR {Path(str(event['file'])).name}: page {event['page']}/{event['pages']}")
        elif kind == "resume":
            self._say(f"↻ resuming an interrupted run at {event['next']}")
        elif kind == "estimate":
            from karaka.estimate import describe

            self._say(f"📏 {describe(event)}")
        elif kind == "unit" and event.get("status") == "failed":
            self.failed += 1
        elif kind == "progress":
            done, total = event["done"], event["total"]
            elapsed = time.monotonic() - self.started
            rate = f"{done / elapsed:.1f}" if elapsed else "-"
            if self.bar is not None:
                if self.task is None:
                    self.bar.start()
                    self.task = self.bar.add_task("extracting", total=total, rate="-", failed=0)
                self.bar.update(self.task, completed=done, total=total, rate=rate, failed=self.failed)
                if done >= total:
                    self.bar.stop()
            elif done >= total or time.monotonic() - self.last_line >= PROGRESS_EVERY:
                self.last_line = time.monotonic()
                print(f"   extracting {done}/{total} units · {rate} units/s · failures {self.failed}", flush=True)


def print_report(report: dict[str, Any]) -> None:
    """Human summary of an ingestion report."""
    graph = report.get("graph", {})
    unchanged = report.get("unchanged_documents", [])
    print(f"📄 documents {report.get('documents')} new or changed"
          + (f", {len(unchanged)} unchanged" if unchanged else "")
          + f" · lines {report.get('lines')} · graph now: nodes {graph.get('nodes')} · edges {graph.get('edges')}")
    print(f"   nodes by type: {graph.get('nodes_by_type')}")
    print(f"   edges by relation: {graph.get('edges_by_relation')}")
    gsv, calls = report.get("gsv", {}), report.get("llm_calls", {})
    if gsv.get("loops"):
        print(f"   GSV accepted {gsv.get('accepted')}/{gsv.get('loops')} ({gsv.get('success_rate')}) · fast path "
              f"{gsv.get('fast_path_rate')} · parser fallbacks {gsv.get('parser_fallbacks')} · LLM calls/line mean "
              f"{calls.get('per_line_mean')} max {calls.get('per_line_max')} · prompt tokens/line "
              f"{calls.get('prompt_tokens_per_line_mean')}")
    elif report.get("documents"):
        print(f"   GSV not used (extractor {report.get('settings', {}).get('extractor')})")
    if report.get("post_processing"):
        print(f"   post-processing: {report.get('post_processing')}")
    for doc in unchanged:
        print(f"   ↻ unchanged: {doc}")
    for skip in report.get("skipped_files", []):
        print(f"   ⚠️  skipped {skip['path']}: {skip['error']}")
    for warning in report.get("warnings", []):
        print(f"   ⚠️  {warning}")
    for failure in report.get("failures", []):
        print(f"   ❌ {failure['ref']}: {failure['cause']}")
    print(verdict(report))


def shortfall(report: dict[str, Any]) -> tuple[int, int]:
    """Failed lines and skipped files of a run: either makes it a run with failures (exit 3)."""
    return len(report.get("failures", [])), len(report.get("skipped_files", []))


def verdict(report: dict[str, Any]) -> str:
    """The run's outcome in one line, as its exit code says it."""
    failed, skipped = shortfall(report)
    if not failed and not skipped:
        return "✅ finished: every line of every file ingested"
    return f"❌ finished with failures: {failed} lines failed, {skipped} files skipped (exit 3)"


def print_answer(result: dict[str, Any], trace: bool) -> None:
    """Answer, numbered citations, status."""
    print(result["answer"])
    for i, c in enumerate(result.get("citations", []), 1):
        print(f"  [{i}] {cite_of(c)} {c['text']}")
    web = result.get("web") or {}
    if web.get("citations"):
        print(f"from the web ({web.get('status')}; not your documents):")
        for i, c in enumerate(web["citations"], 1):
            print(f"  [w{i}] {c['cite']} {c['text']}")
    confidence = "" if result.get("intent") == "find" else f" · confidence {result.get('confidence', 0):.2f}"  # lines, no claim
    print(f"status: {result['status']}{' (web)' if result.get('source') == 'web' else ''}{confidence} · retrieval: "
          f"{result['retrieval']} · LLM calls: {result['llm_calls']}")
    for warning in result.get("warnings", []):
        print(f"⚠️  {warning}")
    if trace:
        for step in result.get("reasoning_trace", []):
            print(f"  → {step}")
