"""Who may reach and change the server: the Host a request names, the Origin it comes from.

A web page on another site can make the user's browser send requests to a server on 127.0.0.1:
a form's POST (``text/plain`` or multipart needs no CORS preflight), or any request after DNS
rebinding points the page's own name at 127.0.0.1. So, for Karaka's own endpoints:

- a request that reaches a loopback address must name a loopback Host (``localhost``,
  ``127.0.0.1``, ``[::1]``) or one of ``allowed_hosts``: else 421 (DNS rebinding);
- a request that changes state (POST, PUT, PATCH, DELETE) coming from a browser page must come
  from the server's own origin or one of ``allowed_origins``: else 403 (cross-site write);
- the JSON endpoints take ``application/json`` only, or multipart files where they take files (a
  spoken question, documents): else 415 (a form cannot send JSON cross-site without a preflight
  the server never grants, and its multipart POST carries an Origin the rule above refuses).

Clients that are not browsers (curl, httpx, the CLI) send no Origin and pass the Origin rule.
Paths of the LangGraph API that ``langgraph dev`` mounts beside these are not guarded here.
"""

from __future__ import annotations

import ipaddress
import json

from starlette.types import ASGIApp, Receive, Scope, Send

WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
GUARDED = ("/chat", "/ingest", "/estimate", "/runs", "/documents", "/views", "/health", "/metrics")
JSON_ONLY = ("/chat/stream",)
JSON_OR_FILES = ("/chat", "/ingest", "/estimate")
"""A spoken question to ``/chat``, files to ``/ingest`` and ``/estimate``: multipart, from this origin only."""
LOOPBACK_NAMES = frozenset({"localhost", "localhost.", "127.0.0.1", "::1"})


def loopback(address: str) -> bool:
    """Whether ``address`` (an IP or ``localhost``) is a loopback address."""
    if address.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:
        return False


def host_name(host: str) -> str:
    """The name of a Host header without its port (``[::1]:8123`` → ``::1``)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host[1:]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def split_setting(value: str) -> tuple[str, ...]:
    """A comma-separated setting as a tuple of its non-empty items, lower-cased, no trailing slash."""
    return tuple(item.strip().lower().rstrip("/") for item in value.split(",") if item.strip())


class Guard:
    """ASGI middleware applying the Host, Origin and content-type rules of this module."""

    def __init__(self, app: ASGIApp, allowed_origins: tuple[str, ...] = (), allowed_hosts: tuple[str, ...] = ()):
        self.app = app
        self.origins = frozenset(allowed_origins)
        self.hosts = frozenset(allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _guarded(scope.get("path", "")):
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, reason = refusal
        body = json.dumps({"error": reason}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """The status and reason a request is refused with, or None when it may pass."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
        host = headers.get("host", "")
        local = (scope.get("server") or ("", 0))[0] or ""
        if "*" not in self.hosts and loopback(local) and not loopback(host_name(host)) \
                and host_name(host) not in self.hosts:
            return 421, (f"Host {host[:100]!r} is not a name of this server (it listens on a loopback address; "
                         "add the name to allowed_hosts to serve it)")
        if scope.get("method") not in WRITES:
            return None
        origin = headers.get("origin")
        if origin is not None:
            own = f"{scope.get('scheme', 'http')}://{host}".lower()
            if origin.lower().rstrip("/") not in self.origins | {own}:
                return 403, (f"a request from the page at {origin[:100]!r} may not change this server "
                             "(cross-site request; add the origin to allowed_origins to allow it)")
        elif headers.get("sec-fetch-site") == "cross-site":
            return 403, "a cross-site request may not change this server"
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if scope.get("path") in JSON_ONLY and kind != "application/json":
            return 415, f"send the body as Content-Type: application/json (got {kind or 'none'!r})"
        if scope.get("path") in JSON_OR_FILES and kind not in ("application/json", "multipart/form-data"):
            return 415, f"send JSON or multipart/form-data to {scope.get('path')} (got {kind or 'none'!r})"
        return None


def _guarded(path: str) -> bool:
    return path == "/" or any(path == p or path.startswith(p + "/") for p in GUARDED)
