"""What an ingestion with a model will cost, said before it starts: lines, requests, tokens and time.

The files are read as ingestion reads them (no model is loaded), their lines counted as the
extractor will see them, and multiplied by per-line figures: this workspace's own finished runs
with the same model and settings when it has any (their actual requests, tokens and seconds),
else the figures measured for that setting by ``benchmarks/gsv_quality.py`` (``MEASURED``, see
docs/benchmarks.md). Time needs a measured speed: a run of this workspace with the same model
gives its seconds per request; without one the estimate says so rather than guess.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from karaka.config import Context


@dataclass(frozen=True)
class PerLine:
    """What one extracted line costs, on average, and where the figure comes from."""

    requests: float
    prompt_tokens: float
    completion_tokens: float
    post_requests: float
    """Post-processing's requests (types, causes, pronouns) per line of the corpus."""
    basis: str
    seconds_per_request: float | None = None


# Per extracted line, by (window, fast path, the LLM writes candidates): requests, prompt and
# completion tokens of the extraction loop, and post-processing requests. Measured with
# `benchmarks/gsv_quality.py` on QA-SRL wikinews dev sentences (docs/benchmarks.md, "Requests per
# line"), llama.cpp counting a request with n samples as one; post-processing from a docs dev run.
MEASURED: dict[tuple[int, bool, bool], tuple[float, float, float]] = {
    (1, True, False): (2.83, 1076, 138),
    (4, True, False): (3.12, 1564, 155),
    (1, True, True): (5.4, 2900, 450),
}
POST_REQUESTS_PER_LINE = 0.3


def _nearest(ctx: Context) -> tuple[tuple[int, bool, bool], bool]:
    key = (ctx.window, ctx.fast_path, ctx.llm_writes)
    if key in MEASURED:
        return key, True
    same_kind = [k for k in MEASURED if k[2] == ctx.llm_writes] or list(MEASURED)
    return min(same_kind, key=lambda k: (abs(k[0] - ctx.window), k[1] != ctx.fast_path)), False


def _same_setting(report: dict[str, Any], ctx: Context) -> bool:
    settings = report.get("settings") or {}
    return (settings.get("llm") == ctx.llm and settings.get("window") == ctx.window
            and settings.get("fast_path") == ctx.fast_path and settings.get("extractor") == ctx.extractor
            and settings.get("strategy") == ctx.strategy)


def per_line(ctx: Context, reports: list[dict[str, Any]]) -> PerLine:
    """The per-line figures for ``ctx``: from ``reports`` (finished runs) of the same setting, else ``MEASURED``."""
    key, exact = _nearest(ctx)
    requests, prompt, completion = MEASURED[key]
    basis = (f"measured for window {key[0]}, fast path {'on' if key[1] else 'off'}"
             f"{', the model writing candidates' if key[2] else ''} (docs/benchmarks.md)")
    if not exact:
        basis += f"; window {ctx.window} was not measured: the nearest setting's figures"
    post = POST_REQUESTS_PER_LINE
    mine = [r for r in reports if _same_setting(r, ctx) and r.get("lines")]
    seconds = None
    if mine:
        lines = sum(r["lines"] for r in mine)
        calls = [r.get("llm_calls") or {} for r in mine]
        extraction = sum(c.get("extraction", 0) for c in calls)
        post_calls = sum(c.get("post_processing", 0) for c in calls)
        if extraction:
            requests = extraction / lines
            prompt = sum((c.get("prompt_tokens_per_line_mean") or 0) * r["lines"] for c, r in zip(calls, mine,
                                                                                              strict=True)) / lines
            post = post_calls / lines
            seconds = sum(r.get("seconds", 0) for r in mine) / max(1, extraction + post_calls)
            basis = f"this workspace's {len(mine)} earlier run(s) with {ctx.llm} and these settings"
    return PerLine(requests, prompt, completion, post, basis, seconds)


def lines_of(ctx: Context, path: str | Path, confine: Path | None = None) -> tuple[int, int, int, list[dict[str, str]]]:
    """Documents, sentences, the sentences the extractor reads, and the files that would be skipped."""
    from karaka.kg.units import extractable
    from karaka.loading import Budget, load_and_refine_documents

    loaded = load_and_refine_documents(path, ctx.max_line_chars, confine, ctx.ocr_languages, budget=Budget.of(ctx))
    lines = [line for doc in loaded.docs for line in doc.lines]
    read = sum(1 for line in lines if extractable(line, parser=ctx.extractor == "parser"))
    return len(loaded.docs), len(lines), read, loaded.skipped


def estimate(ctx: Context, path: str | Path, confine: Path | None = None) -> dict[str, Any]:
    """What ingesting ``path`` with ``ctx`` will cost (no model loaded, nothing written)."""
    documents, lines, read, skipped = lines_of(ctx, path, confine)
    return {**for_lines(ctx, documents, lines, read, _reports(ctx)), "skipped_files": skipped}


def for_lines(ctx: Context, documents: int, lines: int, read: int, reports: list[dict[str, Any]]) -> dict[str, Any]:
    """The cost of a run over ``lines`` sentences (``read`` of them extracted), given earlier runs' ``reports``."""
    out: dict[str, Any] = {"documents": documents, "lines": lines, "extracted_lines": read, "llm": ctx.llm}
    if not _judges(ctx):
        return {**out, "requests": 0, "prompt_tokens": 0, "completion_tokens": 0, "seconds": None,
                "basis": "no model: the parser reads every line"}
    figures = per_line(ctx, reports)
    extracted = read if ctx.extractor == "llm" else 0
    extraction = figures.requests * extracted
    post = figures.post_requests * lines
    requests = extraction + post
    return {
        **out, "requests": round(requests), "extraction_requests": round(extraction),
        "post_processing_requests": round(post), "prompt_tokens": round(figures.prompt_tokens * extracted),
        "completion_tokens": round(figures.completion_tokens * extracted),
        "seconds": round(figures.seconds_per_request * requests) if figures.seconds_per_request else None,
        "basis": figures.basis, "per_line": asdict(figures),
    }


def _judges(ctx: Context) -> bool:
    """Whether post-processing asks the model (types, causes, pronouns) even when the parser extracts."""
    return ctx.llm != "none"


def _reports(ctx: Context) -> list[dict[str, Any]]:
    """Finished runs' reports in this workspace (none for a workspace not made yet: nothing is created)."""
    if not ctx.store and not (Path(ctx.workspace) / "karaka.db").exists():
        return []
    from karaka.services import get_services

    return get_services(ctx).workspace.records.reports()


def describe(found: dict[str, Any]) -> str:
    """One line a person reads before a run starts."""
    head = (f"{found['documents']} document(s), {found['lines']:,} lines ({found['extracted_lines']:,} read by "
            f"the extractor)")
    if not found.get("requests"):
        return f"{head}; no LLM requests ({found['basis']})"
    time = (f", about {_duration(found['seconds'])}" if found.get("seconds") is not None
            else "; time unknown until one run with this model has been measured")
    return (f"{head}: about {found['requests']:,} LLM requests ({found['extraction_requests']:,} extraction, "
            f"{found['post_processing_requests']:,} post-processing), {found['prompt_tokens']:,} prompt + "
            f"{found['completion_tokens']:,} completion tokens{time} [{found['basis']}]")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
