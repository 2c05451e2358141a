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


# Per extracted line, by (model family, window, fast path on): requests, prompt and completion
# tokens of the extraction loop, choosing among the parser's readings (the default, max_retries 5).
# Measured with `benchmarks/gsv_quality.py --sentences 24 --window K [--no-fast-path]` on QA-SRL
# wikinews dev sentences, llama.cpp counting a request with n samples as one (docs/benchmarks.md,
# "Requests per line"). "*" is Qwen2.5-Coder-1.5B's, used for models not measured.
MEASURED: dict[tuple[str, int, bool], tuple[float, float, float]] = {
    ("*", 1, True): (2.83, 1093, 136),
    ("*", 4, True): (1.42, 987, 78),
    ("*", 4, False): (1.25, 860, 63),
    ("*", 8, True): (0.58, 557, 31),
    ("smollm2", 1, True): (2.75, 1141, 128),
    ("smollm2", 4, True): (1.17, 850, 53),
    ("smollm2", 8, True): (0.54, 504, 22),
}
POST_REQUESTS_PER_LINE = 0.67
"""Post-processing's requests a line (an entity's type, a cause, a pronoun judged by the model): SmolLM2 on
two docs dev documents (python-dotenv's README, Python-Markdown's library reference; 176 for 263 lines)."""


def family(llm: str) -> str:
    """The model family a spec names, as ``MEASURED`` keys it."""
    return "smollm2" if "smollm2" in llm.lower() else "*"


def _nearest(ctx: Context) -> tuple[tuple[str, int, bool], bool]:
    key = (family(ctx.llm), ctx.window, ctx.fast_path)
    if key in MEASURED:
        return key, True
    mine = [k for k in MEASURED if k[0] == key[0]] or [k for k in MEASURED if k[0] == "*"]
    return min(mine, key=lambda k: (abs(k[1] - ctx.window), k[2] != ctx.fast_path)), False


def _same_setting(report: dict[str, Any], ctx: Context) -> bool:
    settings = report.get("settings") or {}
    return (settings.get("llm") == ctx.llm and settings.get("window") == ctx.window
            and settings.get("fast_path") == ctx.fast_path and settings.get("extractor") == ctx.extractor
            and settings.get("strategy") == ctx.strategy)


def per_line(ctx: Context, reports: list[dict[str, Any]]) -> PerLine:
    """The per-line figures for ``ctx``: from ``reports`` (finished runs) of the same setting, else ``MEASURED``."""
    key, exact = _nearest(ctx)
    requests, prompt, completion = MEASURED[key]
    model = "SmolLM2-135M" if key[0] == "smollm2" else "Qwen2.5-1.5B"
    basis = f"measured with {model}, window {key[1]}, fast path {'on' if key[2] else 'off'} (docs/benchmarks.md)"
    if not exact:
        basis += f"; window {ctx.window}{', fast path off' if not ctx.fast_path else ''} was not measured: the nearest"
    if ctx.llm_writes:
        basis += "; a model that writes candidates asks more (not measured)"
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
