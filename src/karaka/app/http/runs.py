"""Ingestion runs started over HTTP: one at a time on a worker thread, recorded in karaka.db.

A run's view names paths relative to the ingest root (or the upload folder), never the server's
absolute paths. A run whose models load cheaply runs in a child process (``child``); ``DELETE
/runs/{id}`` stops a run at its next event.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from karaka.app.http.child import ingest_in_child, runs_in_child
from karaka.app.http.metrics import Metrics
from karaka.app.runner import run_ingest, stage_urls
from karaka.config import Context
from karaka.services import get_services
from karaka.store.embedded.lock import is_read_only

log = logging.getLogger("karaka.api")
OWNER = f"{socket.gethostname()}:{os.getpid()}"
"""This server process, as its runs' records name it (another server on the workspace asks if it lives)."""
INTERRUPTED = ("the server stopped during this run; POST the same /ingest again to resume it "
               "(the lines it finished are kept)")
CANCELLED = ("cancelled by DELETE /runs/{id}; POST the same /ingest again to resume it "
             "(the lines it finished are kept)")


class RunCancelled(Exception):
    """Raised in a run's worker at its next event once the run is cancelled."""


@dataclass
class Run:
    """An ingestion run started over HTTP."""

    id: str
    paths: list[str]
    status: str = "queued"
    events: list[dict[str, Any]] = field(default_factory=list)
    done: int = 0
    total: int = 0
    report: dict[str, Any] | None = None
    error: str | None = None
    started: float = field(default_factory=time.time)
    finished: float | None = None
    cancel: bool = False
    """Set by ``DELETE /runs/{id}``: the run stops at its next event and resumes like an interrupted one."""

    def end(self, status: str, error: str | None) -> None:
        """The run is over with ``status`` (the caller holds the registry's lock); its stream says so."""
        self.status, self.error, self.finished = status, error, time.time()
        self.events.append({"event": "done", "status": status})

    def view(self) -> dict[str, Any]:
        """What ``GET /runs/{id}`` returns."""
        return {"run_id": self.id, "status": self.status, "paths": self.paths,
                "progress": {"done": self.done, "total": self.total}, "report": self.report,
                "error": self.error, "started": self.started, "finished": self.finished}

    @classmethod
    def from_view(cls, view: dict[str, Any]) -> Run:
        """A finished run back from its stored ``view()``."""
        run = cls(id=view["run_id"], paths=view["paths"], status=view["status"], report=view["report"],
                  error=view["error"], started=view["started"], finished=view["finished"],
                  done=view["progress"]["done"], total=view["progress"]["total"])
        run.events.append({"event": "done", "status": run.status})
        return run


class Runs:
    """Ingestion runs, one at a time on a worker thread (they share the workspace)."""

    def __init__(self, ctx: Context, root: Path, metrics: Metrics | None = None):
        self.ctx = ctx
        self.metrics = metrics or Metrics()
        self.root = root
        self.home = Path(ctx.workspace).resolve().parent  # errors name workspace files from the workspace's name
        self.runs: dict[str, Run] = {}
        self.lock = threading.Lock()
        self.children: set[subprocess.Popen[bytes]] = set()
        """Ingestion processes started (see ``child``)."""
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="karaka-ingest")

    def _public(self, path: Path, base: Path) -> str:
        try:
            return str(path.resolve().relative_to(base)) or "."
        except ValueError:
            return path.name

    def start(self, paths: list[Path], staged: Path | None = None, replace: bool = False,
              names: list[str] | None = None, urls: list[str] | None = None) -> Run:
        """Queue a run over ``paths``, an upload folder (shown by the ``names`` of its files as sent), or ``urls``.

        Web pages are fetched when the run starts, not while the request waits.
        """
        base = staged or self.root
        run = Run(id=uuid.uuid4().hex[:12], paths=names or urls or [self._public(p, base) for p in paths])
        with self.lock:
            self.runs[run.id] = run
        self.pool.submit(self._work, run, paths, staged, replace, urls or [])
        return run

    def _record(self, run: Run, event: dict[str, Any]) -> None:
        if run.cancel:
            raise RunCancelled(run.id)
        with self.lock:
            if event.get("event") == "progress":
                run.done, run.total = int(event.get("done", 0)), int(event.get("total", 0))
            if event.get("event") == "report":
                event = {k: v for k, v in event.items() if k != "report"}
            run.events.append(event)

    def _scrub(self, report: dict[str, Any], base: Path) -> dict[str, Any]:
        """The report with absolute server paths made relative to the run's base."""
        text = json.dumps(report, ensure_ascii=False)
        prefix = str(base.resolve()).rstrip("/") + "/"
        return dict(json.loads(text.replace(json.dumps(prefix)[1:-1], "")))

    def _work(self, run: Run, paths: list[Path], staged: Path | None, replace: bool, urls: list[str]) -> None:
        run.status = "running"
        self._run(run, paths, staged, replace, urls)

    def _end(self, run: Run, status: str, error: str | None, reports: Sequence[dict[str, Any]] = ()) -> None:
        """End ``run`` once, counting it (and its reports) in the metrics before anyone can see it ended."""
        with self.lock:
            if run.finished is not None:
                return
            for report in reports:
                self.metrics.report(report)
            self.metrics.runs.labels(status).inc()
            run.end(status, error)

    def _run(self, run: Run, paths: list[Path], staged: Path | None, replace: bool, urls: list[str]) -> None:
        try:
            if run.cancel:
                raise RunCancelled(run.id)
            if not self.ctx.store and is_read_only(Path(self.ctx.workspace)):
                raise OSError(f"the workspace {Path(self.ctx.workspace).name} is on a read-only file system or "
                              "not writable; nothing was ingested")
            self._ingest(run, paths, staged, replace, urls)
        except RunCancelled:
            self._end(run, "cancelled", CANCELLED)
            get_services(self.ctx).workspace.records.finish_run(f"http-{run.id}", run.view())
        except Exception as exc:  # noqa: BLE001 - the run fails with the reason; its stream ends
            log.exception("ingest run %s failed", run.id)
            self._end(run, "failed", f"the run could not start or finish: {_without(str(exc), self.root, staged, self.home)}")
            try:
                get_services(self.ctx).workspace.records.finish_run(f"http-{run.id}", run.view())
            except Exception:  # noqa: BLE001 - the records cannot be written either (a read-only workspace)
                log.warning("run %s: its end could not be recorded", run.id)

    def _ingest(self, run: Run, paths: list[Path], staged: Path | None, replace: bool, urls: list[str]) -> None:
        records = get_services(self.ctx).workspace.records
        records.start_run(f"http-{run.id}")
        records.finish_run(f"http-{run.id}", {**run.view(), "owner": OWNER})  # a server stopped mid-run knows of it
        reports, errors = [], []
        if urls:
            self._record(run, {"event": "stage", "stage": "fetch", "urls": len(urls)})
            try:
                staged = stage_urls(self.ctx, urls)  # a URL that fails is a skipped file of the report
            except OSError as exc:  # the workspace cannot hold them: the run fails with the reason
                errors.append(f"fetching {len(urls)} URL(s): {exc}")
                paths = []
        base = staged or self.root
        for path in ([staged] if staged else paths):
            try:
                if runs_in_child(self.ctx):
                    report = ingest_in_child(self.ctx, path, base, replace, lambda e: self._record(run, e),
                                             started=self.children.add)
                else:
                    report = run_ingest(self.ctx, path, on_event=lambda e: self._record(run, e), root=base,
                                        replace=replace)
                report = {**report, "run_id": run.id, "ingest_run_id": report.get("run_id")}  # the id POST gave
                reports.append(self._scrub(report, base))
            except RunCancelled:
                raise
            except Exception as exc:  # noqa: BLE001 - reported on the run, the server carries on
                log.exception("ingest run %s failed on %s", run.id, path)
                errors.append(f"{self._public(path, base)}: {_without(str(exc), base, self.home)}")
        with self.lock:
            run.report = reports[-1] if len(reports) == 1 else {"reports": reports} if reports else None
        failures = sum(len(r.get("failures", [])) + len(r.get("skipped_files", [])) for r in reports)
        self._end(run, "failed" if errors and not reports else "finished_with_failures" if errors or failures
                  else "finished", "; ".join(errors) or None, reports)
        records.finish_run(f"http-{run.id}", run.view())  # GET /runs/{id} still answers after a restart

    def open(self) -> int:
        """Runs queued or running."""
        with self.lock:
            return sum(r.finished is None for r in self.runs.values())

    def get(self, run_id: str) -> Run | None:
        """A run of this server, or an earlier server's from the records.

        A run the records show still running belongs to a server that stopped during it: it
        reads as ``interrupted``.
        """
        with self.lock:
            run = self.runs.get(run_id)
        if run is None and re.fullmatch(r"[0-9a-f]{12}", run_id):
            row = get_services(self.ctx).workspace.records.run(f"http-{run_id}")
            if row and row["report"]:
                view = {k: v for k, v in row["report"].items() if k != "owner"}
                if view["status"] in ("queued", "running"):
                    if _alive(str(row["report"].get("owner", ""))):  # another server's run, going on now
                        view = {**view, "error": "running in another server process on this workspace"}
                    else:
                        view = {**view, "status": "interrupted", "error": INTERRUPTED}
                run = Run.from_view(view)
        return run

    def cancel(self, run_id: str) -> Run | None:
        """Ask a queued or running run to stop (it stops at its next event); None for an unknown run."""
        with self.lock:
            run = self.runs.get(run_id)
            if run is not None and run.finished is None:
                run.cancel = True
        return run if run is not None else self.get(run_id)

    def interrupt_all(self) -> list[str]:
        """At shutdown: record every run still in flight as ``interrupted``; returns their ids."""
        with self.lock:
            live = [r for r in self.runs.values() if r.finished is None]
        for run in live:
            self._end(run, "interrupted", INTERRUPTED)
        records = get_services(self.ctx).workspace.records
        for run in live:
            records.finish_run(f"http-{run.id}", run.view())
        for child in list(self.children):
            if child.poll() is None:
                child.terminate()  # it resumes like any interrupted run
        self.pool.shutdown(wait=False, cancel_futures=True)
        return [r.id for r in live]

    async def events(self, run: Run) -> AsyncIterator[dict[str, str]]:
        """Replay a run's events from the start, then follow it until it ends."""
        sent = 0
        while True:
            with self.lock:
                fresh, finished = run.events[sent:], run.finished is not None
            for event in fresh:
                yield {"event": str(event.get("event", "progress")), "data": json.dumps(event, default=str)}
            sent += len(fresh)
            if finished and sent >= len(run.events):
                yield {"event": "run", "data": json.dumps(run.view(), default=str)}
                return
            await asyncio.sleep(0.1)


def _without(text: str, *bases: Path | None) -> str:
    """``text`` with the server's folders cut from the paths it names."""
    for base in bases:
        if base is not None:
            text = text.replace(str(base.resolve()) + "/", "").replace(str(base) + "/", "")
    return text


def _alive(owner: str) -> bool:
    """Whether the server process a run's record names (``host:pid``) is another one, alive on this host."""
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True
