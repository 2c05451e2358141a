"""Reading requests: JSON bodies, paths under the ingest root, uploads; every problem a 4xx naming it.

Nothing a client gets back names an absolute path of the server: error messages have such paths
cut to their last part.
"""

from __future__ import annotations

import errno
import json
import re
import shutil
import sqlite3
import uuid
from pathlib import Path
from typing import Any

from fastapi import HTTPException, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from starlette.concurrency import run_in_threadpool

from karaka.loading import inside

_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
MAX_JSON_DEPTH = 32
MAX_PATH_CHARS = 1024
MAX_NAME_CHARS = 120
CHUNK = 1 << 20


def scrubbed(exc: BaseException) -> str:
    """An error's message with the server's absolute paths cut to their last part."""
    return re.sub(r"(?<![\w.:/])/(?:[^\s'\"/:]+/)+([^\s'\":]*)", r"\1", str(exc))[:300]


def read_only(exc: BaseException) -> bool:
    """Whether ``exc`` says the workspace cannot be written (a read-only file system, no permission)."""
    if isinstance(exc, OSError) and exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return True
    return isinstance(exc, sqlite3.OperationalError) and "readonly" in str(exc).lower()


def unwritable(exc: BaseException) -> HTTPException:
    """409 for a workspace that cannot be written; any other error goes on as it is."""
    if not read_only(exc):
        raise exc
    return HTTPException(409, f"the workspace cannot be written ({scrubbed(exc)}); nothing was changed")


def field_errors(exc: ValidationError | RequestValidationError) -> str:
    """Validation errors as one line naming each field."""
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
        parts.append(f"{where}: {err.get('msg')}")
    return "; ".join(parts)


def confine(root: Path, raw: str) -> Path:
    """Resolve ``raw`` inside ``root`` (symlinks followed) or refuse with 403."""
    if "\x00" in raw:
        raise HTTPException(422, "paths: a path may not contain a NUL byte")
    shown = raw if len(raw) <= 80 else raw[:77] + "..."
    if len(raw) > MAX_PATH_CHARS:
        raise HTTPException(422, f"paths: {shown!r} is longer than {MAX_PATH_CHARS} characters")
    try:
        candidate = (root / raw).resolve()
        if not inside(candidate, root):
            raise HTTPException(403, f"paths: {shown!r} is outside the ingest root")
        if not candidate.exists():
            raise HTTPException(404, f"paths: {shown!r} does not exist under the ingest root")
    except (OSError, ValueError) as exc:  # a name too long for the file system, a loop of links
        raise HTTPException(422, f"paths: {shown!r} cannot be read as a path ({type(exc).__name__})") from None
    return candidate


def _depth(value: Any, limit: int) -> int:
    stack, deepest = [(value, 1)], 1
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > limit:
            return depth
        if isinstance(item, dict):
            stack += [(v, depth + 1) for v in item.values()]
        elif isinstance(item, list):
            stack += [(v, depth + 1) for v in item]
    return deepest


async def json_body(request: Request) -> Any:
    """The request's JSON, or 400 naming what is wrong with it (empty, malformed, too deep, not text)."""
    raw = await request.body()
    if not raw:
        raise HTTPException(400, "the request body is empty; send JSON")
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise HTTPException(400, f"malformed JSON: {exc}") from None
    except RecursionError:
        raise HTTPException(400, f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as exc:  # an integer of thousands of digits
        raise HTTPException(400, f"malformed JSON: {exc}") from None
    if _depth(data, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
        raise HTTPException(400, f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise HTTPException(400, "malformed JSON: a string holds a lone surrogate (such as \\ud800), "
                                 "which is not text") from None
    return data


def parse(model: type[BaseModel], data: Any) -> Any:
    """``data`` as ``model``, or 422 naming the fields."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise HTTPException(422, field_errors(exc)) from None


async def stage_uploads(request: Request, workspace: Path) -> tuple[Path, bool, list[str]]:
    """Save multipart ``files`` into WORKSPACE/uploads/<id>/ with safe names; a ``replace`` field may say true.

    Files of the same name in one request are all kept: the second goes into a subfolder ``2/``,
    the third into ``3/``… (each then gets its own document id, as same-named files of two folders
    do on the command line). Returns the folder, ``replace`` and the names as sent.
    """
    form = await request.form()
    uploads = [f for f in form.getlist("files") if hasattr(f, "filename")]
    if not uploads:
        raise HTTPException(422, "files: send one or more files in the multipart field 'files'")
    replace = str(form.get("replace") or "").strip().lower() in ("1", "true", "yes", "on")
    target = workspace / "uploads" / uuid.uuid4().hex[:12]
    await run_in_threadpool(target.mkdir, parents=True, exist_ok=True)
    seen: dict[str, int] = {}
    names = []
    for upload in uploads:
        name = safe_name(upload.filename, "upload.txt")  # type: ignore[union-attr]
        seen[name] = seen.get(name, 0) + 1
        folder = target / str(seen[name]) if seen[name] > 1 else target
        await run_in_threadpool(folder.mkdir, exist_ok=True)
        await save_upload(upload, folder / name)
        names.append(Path(str(upload.filename or name)).name)  # type: ignore[union-attr]
    return target, replace, names


def safe_name(sent: str | None, default: str) -> str:
    """A file name sent by a client, as stored: safe characters only, no leading dot, at most ``MAX_NAME_CHARS``."""
    name = _SAFE_NAME.sub("_", Path(str(sent or default)).name).lstrip(".") or default
    if len(name) > MAX_NAME_CHARS:  # the file system's limit is 255 bytes; keep the suffix that names the format
        suffix = Path(name).suffix[:16]
        name = name[:MAX_NAME_CHARS - len(suffix)] + suffix
    return name


async def save_upload(upload: Any, path: Path) -> None:
    """Write an uploaded file in pieces: an upload is never held whole in memory."""
    with open(path, "wb") as out:
        while chunk := await upload.read(CHUNK):
            await run_in_threadpool(out.write, chunk)


async def spoken_question(request: Request, workspace: Path, budget: Any) -> tuple[str, str | None]:
    """The words of a multipart ``audio`` recording (and its ``thread_id``), recognised as ``karaka ask --audio`` does.

    The recording is kept only while it is read; an unreadable or silent one is a 422 naming why.
    """
    from karaka.loading import DocumentError, hear

    form = await request.form()
    audio = form.get("audio")
    if audio is None or not hasattr(audio, "filename"):
        raise HTTPException(422, "audio: send the spoken question as a multipart file field 'audio'")
    folder = workspace / "uploads" / f"spoken-{uuid.uuid4().hex[:12]}"
    try:
        await run_in_threadpool(folder.mkdir, parents=True, exist_ok=True)
        path = folder / safe_name(audio.filename, "question.wav")  # type: ignore[union-attr]
        await save_upload(audio, path)
        try:
            words = await run_in_threadpool(hear, path, budget)
        except DocumentError as exc:
            raise HTTPException(422, f"audio: {str(exc).removeprefix(f'{path}: ')}") from None
    except OSError as exc:
        raise unwritable(exc) from None
    finally:
        await run_in_threadpool(shutil.rmtree, folder, True)
    thread = form.get("thread_id")
    return words, str(thread) if isinstance(thread, str) and thread else None
