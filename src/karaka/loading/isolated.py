"""Untrusted files read in a child process with a memory limit, a time limit and a page budget.

A PDF of a few hundred bytes can ask for a page of 60,000 × 60,000 pixels; a small Flate stream
or a ZIP member can expand to gigabytes; a PDF of 10,000 empty pages keeps OCR busy for an hour.
The formats whose readers decompress (PDF, EPUB, DOCX; recordings, whose decoder is FFmpeg's) are read by
``python -m karaka.loading.isolated`` in a child process that limits its own address space
(``RLIMIT_AS``) before it opens the file, and that is killed when it runs past the time budget.
A bomb then fails that one file with a clear reason; the server or the run carries on.

The child answers in JSON lines (``karaka.processes``): ``{"event": …}`` while it reads (a page sent
to OCR), then ``{"raws": [...], "warnings": [...]}`` or ``{"error": reason}``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from karaka.loading.audio import AUDIO
from karaka.loading.files import DocumentError
from karaka.loading.sentences import Raw
from karaka.processes import request, run_child, send

ISOLATED = (".pdf", ".epub", ".docx", *AUDIO)
"""Formats read in the child: their readers inflate compressed streams (or decode and recognise speech)."""


@dataclass(frozen=True)
class Budget:
    """What reading one file may cost (the settings ``reader_memory_mb``, ``reader_seconds`` and so on)."""

    memory_mb: int = 1024
    seconds: float = 1800.0
    max_pages: int = 2000
    max_lines: int = 200_000
    speech_model: str = ""
    """The recogniser for recordings: empty for the packaged Whisper tiny.en, or a faster-whisper model directory."""

    @classmethod
    def of(cls, ctx: Any) -> Budget:
        """The budget a context's settings give (``reader_memory_mb``, ``reader_seconds``, ``max_pages``…)."""
        return cls(memory_mb=ctx.reader_memory_mb, seconds=ctx.reader_seconds, max_pages=ctx.max_pages,
                   max_lines=ctx.max_lines, speech_model=ctx.speech_model)


def read_isolated(path: Path, warnings: list[str], ocr_langs: str, budget: Budget,
                  progress: Callable[[dict[str, Any]], None] | None = None) -> list[Raw]:
    """The lines of a PDF, EPUB or DOCX file read in a child process within ``budget``.

    Raises:
        DocumentError: the file is bad, or reading it would pass the budget (the reason says which).
    """
    env = {**os.environ, "OMP_THREAD_LIMIT": "1", "OPENBLAS_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    ended = run_child("karaka.loading.isolated", {"path": str(path), "ocr_langs": ocr_langs, "budget": asdict(budget)},
                      progress, env=env, seconds=budget.seconds)
    answer = ended.answer
    if ended.timed_out:
        raise DocumentError(f"{path}: reading it took more than {budget.seconds:g} s (setting reader_seconds); "
                            "skipped")
    if "error" in answer:
        raise DocumentError(str(answer["error"]))
    if "raws" not in answer:
        memory = "MemoryError" in ended.stderr or "memory" in ended.stderr.lower() or ended.returncode in (-6, -9, -11)
        cause = (f"it needs more than {budget.memory_mb} MB to read (setting reader_memory_mb; "
                 "a decompression bomb?)" if memory else f"its reader crashed (exit {ended.returncode})")
        raise DocumentError(f"{path}: {cause}; skipped")
    warnings.extend(answer.get("warnings", []))
    return [Raw(*row) for row in answer["raws"]]


SPEECH_MB = 1024
"""Address space the speech recogniser maps before it reads a byte (faster-whisper's CTranslate2 and MKL
buffers: a one-sentence recording needed 1.3 to 1.4 GB in all on this machine's CPU): a recording's
child gets it on top of ``reader_memory_mb``, which then bounds what the file itself adds."""


def _limit_memory(megabytes: int) -> None:
    import resource

    limit = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _child() -> None:
    """The child's side: read one file as the request on stdin says, answer on stdout."""
    asked = request()
    budget = Budget(**asked["budget"])
    path = Path(asked["path"])
    _limit_memory(budget.memory_mb + (SPEECH_MB if path.suffix.lower() in AUDIO else 0))
    warnings: list[str] = []
    try:
        suffix = path.suffix.lower()
        if suffix == ".pdf":
            from karaka.loading.pdf import pdf_lines

            raws = pdf_lines(path, warnings, asked["ocr_langs"], lambda e: send({"event": e}),
                             max_pages=budget.max_pages)
        elif suffix == ".epub":
            from karaka.loading.epub import epub_lines

            raws = epub_lines(path, warnings)
        elif suffix in AUDIO:
            from karaka.loading.audio import audio_lines

            raws = audio_lines(path, budget.speech_model)
        else:
            from karaka.loading.docx import docx_lines

            raws = docx_lines(path)
    except DocumentError as exc:
        send({"error": str(exc)})
        return
    except MemoryError:
        send({"error": f"{path}: it needs more than {budget.memory_mb} MB to read (setting reader_memory_mb; "
                       "a decompression bomb?); skipped"})
        return
    except Exception as exc:  # noqa: BLE001 - a reader's failure on hostile input names the file
        send({"error": f"{path}: could not be read ({type(exc).__name__}: {str(exc)[:200]})"})
        return
    send({"raws": [list(r) for r in raws], "warnings": warnings})


if __name__ == "__main__":
    _child()
