"""Web search as a fallback, cited as the web (seed 004): off unless ``web_search`` names a provider.

When the documents' answer is not GROUNDED (UNCERTAIN, NO_ANSWER, NO_MATCH: the documents lack
it, or a model's reading failed its checks), the question alone, never a document's text, goes
to one provider. Its results (title, URL, snippet, and the page's text when ``web_fetch_pages``
allows) become a temporary workspace, one document a result, read by the parser; the same
query graph answers over it with the same checks, so a web answer is GROUNDED only when a
result's line proves it. Its citations read ``[web: title, URL]`` and stay apart from the
documents' (``result["web"]``). A provider's failure (timeout, 401, 429, bad JSON) is one named
warning; the documents' answer stands.

Providers, each a few lines over httpx, in their documented JSON formats:
- ``tavily``: ``POST {url}`` with ``{"query", "max_results"}``, key as a Bearer token;
  answers ``{"results": [{"title", "url", "content"}]}``.
- ``searxng``: ``GET {url}/search?q=…&format=json``; answers ``{"results": [{"title", "url", "content"}]}``.
- ``brave``: ``GET {url}?q=…&count=n`` with the key in ``X-Subscription-Token``; answers
  ``{"web": {"results": [{"title", "url", "description"}]}}``.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from karaka.config import Context

if TYPE_CHECKING:
    import httpx

log = logging.getLogger("karaka.web")
PROVIDERS = ("tavily", "searxng", "brave")
DEFAULT_URLS = {"tavily": "https://api.tavily.com/search", "searxng": "",
                "brave": "https://api.search.brave.com/res/v1/web/search"}
KEY_ENV = {"tavily": "TAVILY_API_KEY", "brave": "BRAVE_API_KEY", "searxng": ""}


@dataclass(frozen=True)
class WebResult:
    """One search result: what the provider said of a page."""

    title: str
    url: str
    snippet: str
    text: str = ""


class WebSearchError(RuntimeError):
    """A provider failed; the message names the provider and how."""


def _tavily(client: httpx.Client, url: str, key: str, query: str, n: int) -> list[WebResult]:
    response = client.post(url, json={"query": query, "max_results": n}, headers={"Authorization": f"Bearer {key}"})
    response.raise_for_status()
    return [WebResult(str(r.get("title", "")), str(r.get("url", "")), str(r.get("content", "")))
            for r in response.json().get("results", [])]


def _searxng(client: httpx.Client, url: str, key: str, query: str, n: int) -> list[WebResult]:
    response = client.get(url.rstrip("/") + "/search", params={"q": query, "format": "json"})
    response.raise_for_status()
    return [WebResult(str(r.get("title", "")), str(r.get("url", "")), str(r.get("content", "")))
            for r in response.json().get("results", [])][:n]


def _brave(client: httpx.Client, url: str, key: str, query: str, n: int) -> list[WebResult]:
    response = client.get(url, params={"q": query, "count": n},
                          headers={"X-Subscription-Token": key, "Accept": "application/json"})
    response.raise_for_status()
    return [WebResult(str(r.get("title", "")), str(r.get("url", "")), str(r.get("description", "")))
            for r in (response.json().get("web") or {}).get("results", [])]


SEARCHES: dict[str, Callable[[httpx.Client, str, str, str, int], list[WebResult]]] = {
    "tavily": _tavily, "searxng": _searxng, "brave": _brave}


def search(ctx: Context, query: str) -> list[WebResult]:
    """The provider's results for ``query`` (the question only).

    Raises:
        WebSearchError: not configured, or the provider failed (timeout, refused key, rate limit, bad JSON).
    """
    provider = ctx.web_search
    if provider not in SEARCHES:
        raise WebSearchError(f"web_search {provider!r}: use one of {', '.join(PROVIDERS)}")
    url = ctx.web_search_url or DEFAULT_URLS[provider]
    key = ctx.web_search_key or os.environ.get(KEY_ENV[provider] or "-", "")
    if not url:
        raise WebSearchError(f"web search ({provider}) needs web_search_url (the instance's address)")
    if KEY_ENV[provider] and not key:
        raise WebSearchError(f"web search ({provider}) needs a key: web_search_key or {KEY_ENV[provider]}")
    import httpx  # only when web search is on

    try:
        with httpx.Client(timeout=ctx.web_search_timeout, follow_redirects=False) as client:
            results = SEARCHES[provider](client, url, key, query, ctx.web_results)
            if ctx.web_fetch_pages:
                results = [_with_page(client, r, ctx.url_max_bytes) for r in results]
    except httpx.TimeoutException:
        raise WebSearchError(f"web search ({provider}) timed out after {ctx.web_search_timeout:g} s") from None
    except httpx.HTTPStatusError as exc:
        code = exc.response.status_code
        why = {401: "refused the key", 403: "refused the key", 429: "says too many requests (rate limit)"}.get(
            code, f"answered {code}")
        raise WebSearchError(f"web search ({provider}) {why}") from None
    except (ValueError, AttributeError, TypeError) as exc:  # JSON that is not the provider's format
        raise WebSearchError(f"web search ({provider}) answered in an unexpected format ({exc})"[:300]) from None
    except httpx.HTTPError as exc:
        raise WebSearchError(f"web search ({provider}) failed: {type(exc).__name__}") from None
    return [r for r in results if r.url.startswith(("http://", "https://")) and (r.snippet or r.text)]


def _with_page(client: httpx.Client, result: WebResult, limit: int) -> WebResult:
    """The result with its page's text (HTML read by the HTML reader), when it can be fetched."""
    import httpx

    from karaka.loading.html import html_lines

    try:
        response = client.get(result.url)
        response.raise_for_status()
        body = response.content[:limit].decode(response.encoding or "utf-8", errors="replace")
    except httpx.HTTPError:
        return result
    text = "\n".join(r.text for r in html_lines(body) if r.text) if "html" in response.headers.get(
        "content-type", "") else body
    return replace(result, text=text[:200_000])


def cite(result: WebResult) -> str:
    """A web source as cited: ``[web: title, URL]``."""
    return f"[web: {result.title or result.url}, {result.url}]"


def answer_from_web(ctx: Context, question: str) -> dict[str, Any]:
    """The web's answer to ``question``: ``{"status", "answer", "answers", "citations", "warnings"}``.

    Citations carry ``title``, ``url``, ``text`` and ``cite``; a failure is a warning and status
    ``NO_MATCH``.
    """
    try:
        results = search(ctx, question)
    except WebSearchError as exc:
        log.warning("%s", exc)
        return {"status": "NO_MATCH", "answer": "", "answers": [], "citations": [], "warnings": [str(exc)]}
    if not results:
        return {"status": "NO_MATCH", "answer": "", "answers": [], "citations": [],
                "warnings": [f"web search ({ctx.web_search}) found nothing"]}
    folder = Path(tempfile.mkdtemp(prefix="karaka-web-"))
    try:  # a thread of its own: a query graph run inside a running graph's node would stream into that graph
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="karaka-web") as pool:
            return pool.submit(_answer_over, ctx, question, results, folder).result()
    finally:
        from karaka.services import forget_workspace

        forget_workspace(folder / "ws")
        shutil.rmtree(folder, ignore_errors=True)


Answerer = Callable[[Context, Path, str], dict[str, Any]]
"""Ingest a folder into a workspace of its own (``ctx.workspace``) and answer a question over it."""
_answerer: list[Answerer] = []


def set_answerer(answerer: Answerer) -> None:
    """Give this module the way to ingest and ask (``karaka.app.runner`` does at import: it sits above it)."""
    _answerer[:] = [answerer]


def _answer_over(ctx: Context, question: str, results: list[WebResult], folder: Path) -> dict[str, Any]:
    if not _answerer:
        raise WebSearchError("web search needs karaka.app.runner (it answers over the results)")
    docs = folder / "results"
    docs.mkdir()
    by_doc = {}
    for n, result in enumerate(results, 1):
        body = "\n".join(x for x in (result.title, result.snippet, result.text) if x)
        (docs / f"web-{n}.txt").write_text(re.sub(r"\n{3,}", "\n\n", body) + "\n", encoding="utf-8")
        by_doc[f"web-{n}"] = result
    quiet = replace(ctx, workspace=str(folder / "ws"), store="", web_search="", extractor="parser",
                    coreference=True, metaphors=False, entity_types=False, causality=False)
    found = _answerer[0](quiet, docs, question)
    citations = []
    for c in found.get("citations", []):
        source = by_doc.get(str(c.get("doc_id", "")))
        if source is not None:
            citations.append({"title": source.title, "url": source.url, "text": c.get("text", ""), "cite": cite(source)})
    answer = str(found.get("answer", ""))
    if found.get("status") == "GROUNDED" and citations:
        answer = f"{', '.join(found.get('answers') or []) or answer} {citations[0]['cite']}"
    return {"status": found.get("status", "NO_MATCH"), "answer": answer, "answers": found.get("answers", []),
            "citations": citations, "warnings": list(found.get("warnings", []))}
