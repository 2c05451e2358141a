"""Web pages by URL: fetched with limits, staged as files, ingested like any other file.

``stage(urls, folder)`` fetches each URL into ``folder`` under a name made from the URL
(``example.org__guide__intro.html``) and writes ``SOURCES`` there: the URL of each file (which
becomes the document's source) and each URL that failed with its reason (which becomes a skipped
file of the run's report). A fetch:

- only for ``http`` and ``https``;
- refused when the host resolves to a loopback, private, link-local or otherwise non-public
  address, unless ``allow_private_urls`` is set (a server must not be a way into its own network);
  every redirect is checked the same way, and at most ``MAX_REDIRECTS`` are followed;
- ends with a clear reason after ``url_timeout`` seconds in all, or past ``url_max_bytes``.

The content type (or else the URL's suffix) decides the reader: HTML, plain text, Markdown,
PDF, EPUB, Word.
"""

from __future__ import annotations

import ipaddress
import json
import re
import socket
import time
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from karaka.loading.files import DocumentError

SOURCES = ".sources.json"
"""The staging folder's record of where each file came from, and which URLs failed."""
MAX_REDIRECTS = 5
_TYPES = {"text/html": ".html", "application/xhtml+xml": ".html", "text/plain": ".txt", "text/markdown": ".md",
          "text/x-markdown": ".md", "application/pdf": ".pdf", "application/epub+zip": ".epub",
          "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx"}
_URL = re.compile(r"^https?://", re.IGNORECASE)


def is_url(text: str) -> bool:
    """Whether a path given to ``ingest`` is a web address."""
    return bool(_URL.match(str(text)))


def stage(urls: list[str], folder: Path, *, allow_private: bool = False, max_bytes: int = 50_000_000,
          timeout: float = 30.0) -> Path:
    """Fetch ``urls`` into ``folder`` (created), with ``SOURCES`` recording each file's URL and each failure."""
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    failed: list[dict[str, str]] = []
    for url in urls:
        try:
            final, kind, body = fetch(url, allow_private=allow_private, max_bytes=max_bytes, timeout=timeout)
            name = _free(folder, name_of(final) + suffix_of(final, kind), files)
            (folder / name).write_bytes(body)
            files[name] = final
        except DocumentError as exc:
            failed.append({"path": url, "error": str(exc).removeprefix(f"{url}: ")})
    (folder / SOURCES).write_text(json.dumps({"files": files, "failed": failed}, ensure_ascii=False), encoding="utf-8")
    return folder


def fetch(url: str, *, allow_private: bool = False, max_bytes: int = 50_000_000,
          timeout: float = 30.0) -> tuple[str, str, bytes]:
    """``(the final URL, its content type, its body)``; a ``DocumentError`` naming the URL and the reason."""
    import httpx

    deadline = time.monotonic() + timeout
    asked = url
    for _ in range(MAX_REDIRECTS + 1):
        _check(asked, url, allow_private)
        left = deadline - time.monotonic()
        if left <= 0:
            raise DocumentError(f"{asked}: timed out after {timeout:g} s")
        try:
            with httpx.Client(timeout=left, follow_redirects=False, trust_env=False) as client, \
                    client.stream("GET", url, headers={"User-Agent": "karaka"}) as response:
                if response.is_redirect and response.headers.get("location"):
                    url = urljoin(url, response.headers["location"])
                    continue
                if response.status_code >= 400:
                    raise DocumentError(f"{asked}: the server answered {response.status_code} {response.reason_phrase}")
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > max_bytes:
                    raise DocumentError(f"{asked}: {declared} bytes, over the limit of {max_bytes} (url_max_bytes)")
                body = bytearray()
                for chunk in response.iter_bytes():
                    body += chunk
                    if len(body) > max_bytes:
                        raise DocumentError(f"{asked}: over the limit of {max_bytes} bytes (url_max_bytes)")
                    if time.monotonic() > deadline:
                        raise DocumentError(f"{asked}: timed out after {timeout:g} s")
                kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
                return url, kind, bytes(body)
        except httpx.TimeoutException as exc:
            raise DocumentError(f"{asked}: timed out after {timeout:g} s") from exc
        except httpx.HTTPError as exc:
            raise DocumentError(f"{asked}: cannot be fetched ({type(exc).__name__}: {exc})") from exc
    raise DocumentError(f"{asked}: redirected more than {MAX_REDIRECTS} times")


def _check(asked: str, url: str, allow_private: bool) -> None:
    """Refuse a scheme other than http(s), and an address that is not public unless allowed."""
    parts = urlsplit(url)
    where = asked if url == asked else f"{asked} (redirected to {url})"
    if parts.scheme.lower() not in ("http", "https"):
        raise DocumentError(f"{where}: only http and https URLs are fetched")
    if not parts.hostname:
        raise DocumentError(f"{where}: no host in the URL")
    try:
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
        found = {info[4][0] for info in socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)}
    except (socket.gaierror, ValueError, UnicodeError) as exc:
        raise DocumentError(f"{where}: cannot resolve {parts.hostname} ({exc})") from exc
    for address in sorted(found):
        ip = ipaddress.ip_address(str(address).split("%", 1)[0])
        if not ip.is_global and not allow_private:
            raise DocumentError(f"{where}: points at a local or private address ({ip}); "
                                "set allow_private_urls to fetch it")


def name_of(url: str) -> str:
    """A document id from a URL: ``https://example.org/guide/intro.html`` → ``example.org__guide__intro``."""
    parts = urlsplit(url)
    path = unquote(parts.path).strip("/")
    path = re.sub(r"\.(?:html?|txt|md|markdown|pdf|epub|docx)$", "", path, flags=re.IGNORECASE)
    raw = "__".join(p for p in [parts.hostname or "web", *path.split("/")] if p)
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", raw).strip("_.")[:150] or "web"


def suffix_of(url: str, kind: str) -> str:
    """The reader's suffix for a content type, else for the URL's own suffix; HTML when neither says."""
    if kind in _TYPES:
        return _TYPES[kind]
    own = Path(urlsplit(url).path).suffix.lower()
    return own if own in set(_TYPES.values()) | {".htm", ".markdown"} else ".html"


def _free(folder: Path, name: str, taken: dict[str, str]) -> str:
    stem, suffix = name.rsplit(".", 1)
    candidate, n = name, 1
    while candidate in taken or (folder / candidate).exists():
        n += 1
        candidate = f"{stem}-{n}.{suffix}"
    return candidate


def sources(folder: Path) -> tuple[dict[str, str], list[dict[str, str]]]:
    """A staging folder's file → URL map and failed URLs (empty for any other folder)."""
    record = folder / SOURCES
    if not record.is_file():
        return {}, []
    data = json.loads(record.read_text(encoding="utf-8"))
    return dict(data.get("files", {})), list(data.get("failed", []))
