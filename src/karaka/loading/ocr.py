"""OCR of a scanned PDF page: pdfium renders it, Tesseract (Debian's ``tesseract-ocr``) reads it.

The page goes to ``tesseract`` as a greyscale PGM on its standard input, and its TSV output gives
every word with its box, so OCR'd lines carry positions like the text layer's (the PDF reader
drops headers and footers from them the same way). No Python imaging library is needed.
"""

from __future__ import annotations

import csv
import functools
import io
import os
import shutil
import subprocess
from typing import Any

DPI = 300
MAX_PIXELS = 40_000_000
"""A page is rendered for OCR with at most this many pixels (an A3 page at 300 dpi has 17 million)."""
MIN_DPI = 100
TIMEOUT_S = 300
INSTALL = "install tesseract-ocr to read scanned PDFs"


class OCRError(RuntimeError):
    """Tesseract failed on a page; the message says how."""


@functools.cache
def tesseract() -> str | None:
    """The ``tesseract`` program, or None when it is not installed."""
    return shutil.which("tesseract")


@functools.cache
def languages() -> tuple[str, ...]:
    """Tesseract's installed language packs, without the script detector (``osd``)."""
    program = tesseract()
    if program is None:
        return ()
    out = subprocess.run([program, "--list-langs"], capture_output=True, text=True, timeout=60, check=False)
    return tuple(x.strip() for x in out.stdout.splitlines()[1:] if x.strip() and x.strip() != "osd")


def wanted(requested: str) -> str:
    """The ``-l`` argument: the requested packs ("eng+fra") that are installed; English if none is."""
    have = languages()
    chosen = [lang for lang in requested.split("+") if lang in have]
    return "+".join(chosen) or ("eng" if "eng" in have else (have[0] if have else "eng"))


def read_page(page: Any, langs: str = "eng") -> list[tuple[float, float, float, float, str]]:
    """Lines of a pdfium page read by OCR: ``(left, bottom, right, top, text)`` in PDF points."""
    program = tesseract()
    if program is None:
        raise OCRError(INSTALL)
    page_w, page_h = page.get_size()
    scale = min(DPI / 72, (MAX_PIXELS / max(page_w * page_h, 1.0)) ** 0.5)
    if scale * 72 < MIN_DPI:  # a page of metres: rendering it readably would take gigabytes
        raise OCRError(f"the page is {page_w:,.0f} × {page_h:,.0f} pt, too large to render for OCR "
                       f"(over {MAX_PIXELS:,} pixels at {MIN_DPI} dpi)")
    bitmap = page.render(scale=scale, grayscale=True)
    pixels = bitmap.to_numpy()
    height, width = pixels.shape[:2]
    image = b"P5\n%d %d\n255\n" % (width, height) + pixels.reshape(height, width, -1)[:, :, 0].tobytes()
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}  # one page at a time, one core: no oversubscription
    try:
        out = subprocess.run([program, "stdin", "stdout", "-l", wanted(langs), "--dpi", str(round(scale * 72)), "tsv"],
                             input=image, capture_output=True, timeout=TIMEOUT_S, env=env, check=False)
    except subprocess.TimeoutExpired as exc:
        raise OCRError(f"tesseract took more than {TIMEOUT_S} s on one page") from exc
    if out.returncode != 0:
        raise OCRError(f"tesseract failed: {out.stderr.decode(errors='replace').strip()[:200]}")
    return _lines(out.stdout.decode("utf-8", errors="replace"), page_height=height / scale, scale=scale)


def _lines(tsv: str, page_height: float, scale: float) -> list[tuple[float, float, float, float, str]]:
    """Tesseract's TSV words → one entry per text line, in reading order."""
    lines: dict[tuple[str, str, str], list[tuple[float, float, float, float, str]]] = {}
    for row in csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE):
        text = (row.get("text") or "").strip()
        if row.get("level") != "5" or not text or float(row.get("conf") or -1) < 0:
            continue
        left, top = float(row["left"]) / scale, float(row["top"]) / scale
        right, bottom = left + float(row["width"]) / scale, top + float(row["height"]) / scale
        key = (row["block_num"], row["par_num"], row["line_num"])
        lines.setdefault(key, []).append((left, page_height - bottom, right, page_height - top, text))
    out = []
    for words in lines.values():
        out.append((min(w[0] for w in words), min(w[1] for w in words), max(w[2] for w in words),
                    max(w[3] for w in words), " ".join(w[4] for w in words)))
    return out
