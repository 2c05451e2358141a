"""Read views for people: the web page at ``/`` and the endpoints it draws from.

- ``GET /``: the page (``static/index.html``); ``/ui/*`` its script, style and the vendored
  cytoscape.js. No CDN, no build step.
- ``GET /views/line?doc_id=D&line=N&around=K``: a cited line within its neighbouring lines (a
  PDF's: the lines of its page around it, with the page and the link that opens the file there).
- ``GET /documents/{doc_id}/file``: the ingested file itself (a PDF opens at ``#page=N``), when it
  lies inside the ingest root or the workspace.
- ``GET /views/graph?cite=D:LINE[.SENTENCE]&cite=…``: the Kriyās of the cited lines, their kāraka
  edges, and the IS_SAME_AS and CAUSES links around them: the answer's graph.
- ``GET /views/entity?name=NAME``: an entity's neighbourhood (its Kriyās, their other roles,
  IS_SAME_AS), with each Kriyā's line.
- ``GET /views/entities?q=TEXT``: entity names for the search box.

The graph payload is a list of cytoscape elements: nodes ``{id, label, type}`` and edges
``{id, source, target, label}``; a Kriyā node also carries its doc_id, line and text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.responses import FileResponse, HTMLResponse
from starlette.concurrency import run_in_threadpool

from karaka.loading.files import inside
from karaka.services import get_services
from karaka.store.ids import cite, document_node
from karaka.store.schema import KARAKA_RELATIONS, RELATION_TO_KARAKA

STATIC = Path(str(resources.files("karaka.app.http") / "static"))
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
                               "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
                               "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"}
"""The page runs only its own scripts: text from documents can never run as script in it."""
MAX_CITES = 20
MAX_AROUND = 10
MAX_NEIGHBOURHOOD = 60
_CITE = re.compile(r"^(?P<doc>.+):(?P<line>\d+)(?:\.(?P<sentence>\d+))?$")
CITES = Query(default_factory=list, description="DOC:LINE or DOC:LINE.SENTENCE, repeated")
_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html", ".txt": "text/plain"}
_FILE_TYPES = {".pdf": "application/pdf", ".md": "text/plain; charset=utf-8", ".markdown": "text/plain; charset=utf-8",
               ".html": "text/plain; charset=utf-8", ".htm": "text/plain; charset=utf-8"}
"""An ingested file as served back: a PDF as itself; HTML as its source text (never run in the page's origin)."""


def add_views(app: FastAPI, context: Callable[[], Any], authorised: Callable[..., None],
              root: Callable[[], Path]) -> None:
    """Add the page and its read endpoints to ``app``."""

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def page() -> HTMLResponse:
        return HTMLResponse((STATIC / "index.html").read_text(encoding="utf-8"), headers=PAGE_HEADERS)

    @app.get("/ui/{name:path}", include_in_schema=False)
    async def asset(name: str) -> FileResponse:
        path = (STATIC / name).resolve()
        if not path.is_file() or STATIC.resolve() not in path.parents:
            raise HTTPException(404, f"no such file: {name!r}")
        return FileResponse(path, media_type=_TYPES.get(path.suffix, "application/octet-stream"),
                            headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"})

    @app.get("/views/line")
    async def line(request: Request, doc_id: str, line: int = Query(ge=1), sentence: int = Query(0, ge=0),
                   around: int = Query(3, ge=0, le=MAX_AROUND),
                   page: int = Query(0, ge=0, description="a PDF page: then line is the line on it")) -> dict[str, Any]:
        authorised(request, write=False)
        return await run_in_threadpool(line_view, context(), doc_id, line, sentence, around, page, root())

    @app.get("/documents/{doc_id}/file")
    async def original(request: Request, doc_id: str) -> FileResponse:
        authorised(request, write=False)
        path = await run_in_threadpool(source_file, context(), doc_id, root())
        return FileResponse(path, media_type=_FILE_TYPES.get(path.suffix.lower(), "text/plain; charset=utf-8"),
                            headers={"Content-Disposition": "inline", "X-Content-Type-Options": "nosniff",
                                     "Content-Security-Policy": "sandbox"})

    @app.get("/views/graph")
    async def graph(request: Request, cite: list[str] = CITES) -> dict[str, Any]:
        authorised(request, write=False)
        if len(cite) > MAX_CITES:
            raise HTTPException(422, f"cite: at most {MAX_CITES} citations")
        refs = [_parse_cite(c) for c in cite]
        return await run_in_threadpool(answer_graph, context(), refs)

    @app.get("/views/entity")
    async def entity(request: Request, name: str = Query(min_length=1, max_length=200)) -> dict[str, Any]:
        authorised(request, write=False)
        return await run_in_threadpool(entity_graph, context(), name)

    @app.get("/views/entities")
    async def entities(request: Request, q: str = Query("", max_length=200),
                       limit: int = Query(20, ge=1, le=100)) -> dict[str, Any]:
        authorised(request, write=False)
        return await run_in_threadpool(entity_names, context(), q, limit)


def _parse_cite(raw: str) -> tuple[str, int, int]:
    match = _CITE.match(raw)
    if match is None:
        raise HTTPException(422, f"cite: {raw!r} is not DOC:LINE or DOC:LINE.SENTENCE")
    return match["doc"], int(match["line"]), int(match["sentence"] or 0)


def line_view(ctx: Any, doc_id: str, line: int, sentence: int, around: int, page: int = 0,
              root: Path | None = None) -> dict[str, Any]:
    """The sentence cited as ``[doc, Line line]`` (``[doc, p. page, line line]``) and its neighbours.

    A PDF's line comes with the link that opens the file at its page when the server may serve
    that file (``root``: the ingest root), else with the reason it may not.
    """
    ws = get_services(ctx).workspace
    with ws.reading():
        doc = ws.records.document(doc_id)
        if doc is None:
            raise HTTPException(404, f"document {doc_id!r} not found")
        lines = ws.records.lines(doc_id)

        def number(s: Any) -> tuple[int, int]:
            return (s.page, s.page_line) if page else (0, s.line)

        at = next((i for i, s in enumerate(lines) if number(s) == (page, line) and s.sentence == sentence), None)
        if at is None:
            at = next((i for i, s in enumerate(lines) if number(s) == (page, line)), None)
        if at is None:
            raise HTTPException(404, f"{doc_id!r} has no line {line}" + (f" on page {page}" if page else ""))
        line = lines[at].line
        cited = lines[at]
        if cited.page or cited.chapter:  # the page's (the chapter's) text around the line, not another's
            lines = [s for s in lines if (s.page, s.chapter) == (cited.page, cited.chapter)]
            at = lines.index(cited)
        window = lines[max(0, at - around):at + around + 1]
        citation = cite(doc_id, cited.line, cited.sentence, page=cited.page, page_line=cited.page_line,
                        section=cited.section, chapter=cited.chapter, verse=cited.verse)
        out = {"doc_id": doc_id, "name": Path(doc["path"]).name, "line": line, "citation": citation,
               "lines": [{"line": s.line, "sentence": s.sentence, "text": s.text, "cited": s is cited, **s.place()}
                         for s in window]}
        if cited.page:
            out |= {"page": cited.page, "page_line": cited.page_line}
            try:
                source_file(ctx, doc_id, root or Path.cwd())
                out["file_url"] = f"/documents/{quote(doc_id)}/file#page={cited.page}"
            except HTTPException as exc:  # a link that would answer 403 or 404 is not offered
                out["file_note"] = str(exc.detail)
        for key in ("section", "chapter", "verse"):
            if getattr(cited, key):
                out[key] = getattr(cited, key)
        return out


def source_file(ctx: Any, doc_id: str, root: Path) -> Path:
    """The file a document was ingested from, when it still exists inside the ingest root or the workspace."""
    ws = get_services(ctx).workspace
    doc = ws.records.document(doc_id)
    if doc is None:
        raise HTTPException(404, f"document {doc_id!r} not found")
    path = Path(doc["path"]).resolve()
    allowed = (root.resolve(), Path(ctx.workspace).resolve())
    if not any(inside(path, base) for base in allowed):
        raise HTTPException(403, f"{doc_id!r} was ingested from outside the ingest root; its file is not served")
    if not path.is_file():
        raise HTTPException(404, f"the file of {doc_id!r} is no longer where it was ingested from")
    return path


class _Elements:
    """Cytoscape elements, each node and edge once."""

    def __init__(self, kg: Any) -> None:
        self.kg = kg
        self.nodes: dict[str, dict[str, Any]] = {}
        self.edges: dict[str, dict[str, Any]] = {}

    def node(self, node_id: str) -> None:
        if node_id in self.nodes:
            return
        attrs = self.kg.node(node_id) or {}
        kind = attrs.get("type", "Entity")
        data: dict[str, Any] = {"id": node_id, "type": kind}
        if kind == "Kriya":
            doc = self.kg.node(document_node(attrs["doc_id"], attrs["line_number"], attrs.get("sentence", 0))) or {}
            data |= {"label": attrs.get("verb", node_id), "doc_id": attrs.get("doc_id"),
                     "line": attrs.get("line_number"), "text": doc.get("text", ""),
                     **{k: doc[k] for k in ("page", "page_line", "section", "chapter", "verse") if doc.get(k)},
                     "provenance": attrs.get("provenance", "")}
        else:
            data |= {"label": attrs.get("canonical_name", node_id), "entity_type": attrs.get("entity_type", "")}
        self.nodes[node_id] = {"data": data}

    def edge(self, source: str, target: str, relation: str) -> None:
        key = f"{source}|{relation}|{target}"
        if key in self.edges:
            return
        self.node(source)
        self.node(target)
        label = RELATION_TO_KARAKA.get(relation, relation)
        self.edges[key] = {"data": {"id": key, "source": source, "target": target, "label": label,
                                    "relation": relation}}

    def kriya(self, kriya: str, *, links: bool = True) -> None:
        """A Kriyā with its kāraka edges, and (with ``links``) its CAUSES and its entities' IS_SAME_AS."""
        self.node(kriya)
        for e in self.kg.edges_out(kriya):
            if e.relation in KARAKA_RELATIONS:
                self.edge(kriya, e.target, e.relation)
                if links:
                    for other in self.kg.neighbors(e.target, "IS_SAME_AS"):
                        self.edge(e.target, other, "IS_SAME_AS")
                    for other in self.kg.neighbors(e.target, "IS_SAME_AS", "in"):
                        self.edge(other, e.target, "IS_SAME_AS")
            elif e.relation == "CAUSES" and links:
                self.kriya(e.target, links=False)
                self.edge(kriya, e.target, "CAUSES")
        if links:
            for cause in self.kg.neighbors(kriya, "CAUSES", "in"):
                self.kriya(cause, links=False)
                self.edge(cause, kriya, "CAUSES")

    def payload(self) -> dict[str, Any]:
        kriyas = [n["data"] for n in self.nodes.values() if n["data"]["type"] == "Kriya"]
        return {"elements": {"nodes": list(self.nodes.values()), "edges": list(self.edges.values())},
                "kriyas": sorted(kriyas, key=lambda d: (d["doc_id"] or "", d["line"] or 0, d["id"]))}


def answer_graph(ctx: Any, refs: list[tuple[str, int, int]]) -> dict[str, Any]:
    """The Kriyās on the cited lines, their roles, and the IS_SAME_AS and CAUSES links around them."""
    ws = get_services(ctx).workspace
    with ws.reading():
        kg = ws.graph
        out = _Elements(kg)
        for doc_id, line, sentence in refs:
            document = document_node(doc_id, line, sentence)
            for kriya in kg.neighbors(document, "CITED_IN", "in"):
                out.kriya(kriya)
        return out.payload()


def _find_entity(kg: Any, name: str) -> str | None:
    if (kg.node(name) or {}).get("type") == "Entity":
        return name
    low = " ".join(name.lower().split())
    matches = [n for n in kg.nodes_of("Entity") if " ".join(str(kg.node(n).get("canonical_name", "")).lower().split()) == low]
    return min(matches, key=lambda n: -len(kg.uses(n))) if matches else None


def entity_graph(ctx: Any, name: str) -> dict[str, Any]:
    """An entity's neighbourhood: its Kriyās (at most MAX_NEIGHBOURHOOD) with all their roles."""
    ws = get_services(ctx).workspace
    with ws.reading():
        kg = ws.graph
        entity = _find_entity(kg, name)
        if entity is None:
            raise HTTPException(404, f"no entity named {name!r}")
        out = _Elements(kg)
        out.node(entity)
        for same in kg.same_as_closure(entity, limit=10):
            if same != entity and same in kg.neighbors(entity, "IS_SAME_AS"):
                out.edge(entity, same, "IS_SAME_AS")
            elif same != entity:
                out.edge(same, entity, "IS_SAME_AS")
            for kriya, _ in kg.uses(same)[:MAX_NEIGHBOURHOOD]:
                out.kriya(kriya, links=False)
        return {"entity": entity, "name": (kg.node(entity) or {}).get("canonical_name", entity), **out.payload()}


def entity_names(ctx: Any, q: str, limit: int) -> dict[str, Any]:
    """Entity names containing ``q`` (case-insensitive), most used first."""
    ws = get_services(ctx).workspace
    low = q.lower().strip()
    with ws.reading():
        kg = ws.graph
        names = {n: str((kg.node(n) or {}).get("canonical_name", n)) for n in kg.nodes_of("Entity")}
        found = [(len(kg.uses(n)), name) for n, name in names.items() if low in name.lower()]
    found.sort(key=lambda t: (-t[0], t[1].lower()))
    return {"entities": [{"name": name, "uses": uses} for uses, name in found[:limit]]}
