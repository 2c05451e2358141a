"""Scripted models for the spec's example and friends."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

from karaka.config import Context
from karaka.models import register
from tests.scripted import ScriptedChatModel

GIVE = {"line": 1, "verb": "give", "karakas": {"KARTA": "Rama", "KARMA": "bow", "SAMPRADANA": "Lakshmana"}}
USE_KILL = [
    {"line": 2, "verb": "use", "karakas": {"KARTA": "He", "KARMA": "it"},
     "coreferences": [{"pronoun": "He", "refers_to": "Rama"}, {"pronoun": "it", "refers_to": "bow"}]},
    {"line": 2, "verb": "kill", "karakas": {"KARTA": "He", "KARMA": "Ravana"}},
]


def extraction(user: str, n: int) -> str:
    kriyas = []
    for line in user.splitlines():
        if not line.startswith("[L"):
            continue
        number = int(line[2 : line.index("]")])
        if "Rama gave the bow" in line:
            kriyas.append({**GIVE, "line": number})
        elif "He used it" in line:
            kriyas += [{**k, "line": number} for k in USE_KILL]
        elif "Sita" in line:
            kriyas.append({"line": number, "verb": "follow", "karakas": {"KARTA": "Sita", "KARMA": "Rama"}})
    return json.dumps({"kriyas": kriyas})


def coref(user: str, n: int) -> str:
    pronoun = user.split('pronoun "', 1)[1].split('"', 1)[0]
    target = {"He": "Rama", "it": "bow"}.get(pronoun)
    return json.dumps({"answer": "yes" if target else "no", "target": target, "reasoning": "fake"})


def plan_for(user: str, n: int) -> str:
    question = user.split("Question:", 1)[1].splitlines()[0].strip()
    plans = {
        "What did Rama give?": {"verb": "give", "karakas": {"KARTA": "Rama"}, "extract": "KARMA"},
        "Who killed Ravana?": {"verb": "kill", "karakas": {"KARMA": "Ravana"}, "extract": "KARTA"},
        "Why was Ravana killed?": {"verb": "kill", "karakas": {"KARMA": "Ravana"}, "extract": "KARTA",
                                   "follow_causes": True},
        "What did Hanuman eat?": {"verb": "eat", "karakas": {"KARTA": "Hanuman"}, "extract": "KARMA"},
        "What did Lakshmana receive from the bow?": {"verb": "receive", "karakas": {"KARTA": "Lakshmana"},
                                                     "extract": "KARMA"},
    }
    step = {"goal": question, "follow_causes": False, "follow_same_as": True,
            **plans.get(question, {"verb": "zzz", "karakas": {}, "extract": "KARMA"})}
    return json.dumps({"steps": [step], "reasoning": "fake"})


def read_first(user: str, n: int) -> str:
    """The reader's first guess when it gave one, else the first line: its words as the quote and the answer."""
    hint = re.search(r'^- "(.*)" \(line (\d+)\)', user, re.MULTILINE)
    if hint:
        return json.dumps({"line": int(hint.group(2)), "quote": hint.group(1), "answer": hint.group(1)})
    first = re.search(r"^1\. \[[^\]]+\] (.*)$", user, re.MULTILINE)
    if first is None:
        return json.dumps({"line": 0, "quote": "", "answer": ""})
    return json.dumps({"line": 1, "quote": first.group(1), "answer": first.group(1)})


def script(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "kriya_extraction_prompt": extraction,
        "kriya_correction_prompt": lambda user, n: extraction(user.split("Lines:", 1)[-1], n),
        "kriya_scoring_prompt": ['{"reasoning": "good", "score": 97}'],
        "kriya_verification_prompt": ['{"choice": "Candidate_A", "reasoning": "fine"}'],
        "coreference_prompt": coref,
        "entity_type_prompt": ['{"entity_type": "Person", "reasoning": "fake"}'],
        "entity_type_check_prompt": lambda user, n: json.dumps(  # the first type offered, as a biased small model does
            {"answer": re.search(r"context: (\w+) or", user).group(1), "reasoning": "fake"}),
        "causality_prompt": lambda user, n: json.dumps({"answer": "yes" if "First: use (line" in user and "kill" in user else "no"}),
        "metaphor_extraction_prompt": ['{"target": null}'],
        "query_decomposition_prompt": plan_for,
        "query_scoring_prompt": ['{"reasoning": "ok", "score": 97}'],
        "query_verification_prompt": ['{"choice": "Candidate_A", "reasoning": "ok"}'],
        "answer_read_prompt": read_first,
        "kriya_batch_validation_prompt": ['{"invalid_lines": [], "reasoning": "ok"}'],
    }
    base.update(overrides)
    return base


def fake_context(workspace, model: ScriptedChatModel | None = None, **settings: Any) -> tuple[Context, ScriptedChatModel]:
    model = model or ScriptedChatModel(script())
    spec = register(f"fake-{uuid.uuid4().hex[:8]}", model)
    settings.setdefault("window", 1)  # the loop's mechanics, one line a unit; windows are tested by name
    return Context(workspace=str(workspace), llm=spec, **settings), model


def write_doc(folder, name: str, *lines: str):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def parsed_workspace(root: Path, docs: dict[str, tuple[str, ...]]) -> Context:
    """``docs`` (file name → lines) written under ``root/docs`` and ingested by the parser into ``root/ws``."""
    from karaka.app.runner import run_ingest

    for name, lines in docs.items():
        write_doc(root / "docs", name, *lines)
    context = Context(workspace=str(root / "ws"), llm="none", extractor="parser")
    run_ingest(context, root / "docs")
    return context


def grounded(ctx: Context, question: str) -> list[str]:
    """The answers shown for ``question``, which must be GROUNDED (the whole result is the failure's message)."""
    from karaka.app.runner import run_query

    result = run_query(ctx, question)
    assert result["status"] == "GROUNDED", result
    return list(result["answers"])


def tiny_pdf(text: str) -> bytes:
    """A one-page PDF holding ``text``, written by hand (no PDF library needed)."""
    return text_pdf([[(10, 40, text)]], width=300, height=100)


def _pdf(objects: list[bytes]) -> bytes:
    """A PDF file of numbered objects (1 is the catalog), with its cross-reference table."""
    out, offsets = b"%PDF-1.4\n", []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    return out + b"trailer\n<< /Root 1 0 R /Size %d >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)


def _stream(data: bytes, extra: bytes = b"") -> bytes:
    return b"<< /Length %d %s>>\nstream\n" % (len(data), extra) + data + b"\nendstream"


def text_pdf(pages: list[list[tuple[float, float, str]]], width: int = 612, height: int = 792,
             fixed: bool = False) -> bytes:
    """A PDF whose pages hold text at given places: each page a list of (x, y, text), y from the bottom.

    Helvetica with its standard encoding: byte \\256 is the "fi" ligature, as in typeset PDFs. With
    ``fixed``, what a text holds between backquotes is set in Courier instead, as a manual sets code.
    """
    n = len(pages)
    kids = b" ".join(b"%d 0 R" % (5 + 2 * i) for i in range(n))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, n),
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>"]

    def shown(text: str) -> bytes:
        parts = text.split("`") if fixed else [text]
        return b"".join(b"/F%d 10 Tf (%s) Tj " % (1 + i % 2, part.encode("latin-1")) for i, part in enumerate(parts) if part)

    for i, lines in enumerate(pages):
        ops = b"".join(b"BT %.1f %.1f Td %s ET\n" % (x, y, shown(text)) for x, y, text in lines)
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Contents %d 0 R "
                       b"/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> >>" % (width, height, 6 + 2 * i))
        objects.append(_stream(ops))
    return _pdf(objects)


def image_pdf(pixels: bytes, width: int, height: int, page_width: float = 612, page_height: float = 792) -> bytes:
    """A one-page PDF that is one greyscale image and no text: what a scanner makes."""
    import zlib

    packed = zlib.compress(pixels)
    content = b"q %.2f 0 0 %.2f 0 0 cm /Im1 Do Q" % (page_width, page_height)
    return _pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                 b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Contents 4 0 R "
                 b"/Resources << /XObject << /Im1 5 0 R >> >> >>" % (page_width, page_height),
                 _stream(content),
                 _stream(packed, b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                         b"/BitsPerComponent 8 /Filter /FlateDecode " % (width, height))])


def scanned(pdf: bytes, dpi: int = 200) -> bytes:
    """The first page of ``pdf`` rendered to pixels and wrapped as an image-only PDF (a scan of it)."""
    import pypdfium2 as pdfium

    page = pdfium.PdfDocument(pdf)[0]
    width, height = page.get_size()
    pixels = page.render(scale=dpi / 72, grayscale=True).to_numpy()
    rows, cols = pixels.shape[:2]
    return image_pdf(pixels.reshape(rows, cols, -1)[:, :, 0].tobytes(), cols, rows, width, height)


def epub(path, chapters: list[tuple[str, list[str]]], *, encrypted: str = "", toc: bool = True):
    """An EPUB 3 written by hand: each chapter (title, paragraphs) an XHTML file in the spine, a nav document."""
    import zipfile

    with zipfile.ZipFile(path, "w") as book:
        book.writestr("mimetype", "application/epub+zip")
        book.writestr("META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" '
                      'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile '
                      'full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>')
        if encrypted:
            book.writestr("META-INF/encryption.xml", '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
                          'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:EncryptionMethod '
                          'Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/><enc:CipherData><enc:CipherReference '
                          f'URI="{encrypted}"/></enc:CipherData></enc:EncryptedData></encryption>')
        items, refs, links = [], [], []
        for n, (title, paragraphs) in enumerate(chapters, 1):
            body = "".join(f"<p>{p}</p>\n" for p in paragraphs)
            book.writestr(f"OEBPS/ch{n}.xhtml", '<?xml version="1.0" encoding="utf-8"?>\n<html xmlns='
                          f'"http://www.w3.org/1999/xhtml"><head><title>{title}</title></head><body>\n'
                          f"<h1>{title}</h1>\n{body}</body></html>")
            items.append(f'<item id="c{n}" href="ch{n}.xhtml" media-type="application/xhtml+xml"/>')
            refs.append(f'<itemref idref="c{n}"/>')
            links.append(f'<li><a href="ch{n}.xhtml">{title}</a></li>')
        if toc:
            items.append('<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>')
            book.writestr("OEBPS/nav.xhtml", '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub='
                          '"http://www.idpf.org/2007/ops"><body><nav epub:type="toc"><ol>'
                          f'{"".join(links)}</ol></nav></body></html>')
        book.writestr("OEBPS/content.opf", '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" '
                      'version="3.0"><metadata/><manifest>' + "".join(items) + "</manifest><spine>" + "".join(refs)
                      + "</spine></package>")
    return path


def docx(path, blocks: list[tuple[str, object]]):
    """A .docx written by hand: ("Heading1", text), ("Normal", text), ("List", text) or ("table", rows)."""
    import zipfile
    from xml.sax.saxutils import escape

    def para(style, text):
        numbered = '<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>' if style == "List" else ""
        return (f'<w:p><w:pPr><w:pStyle w:val="{style}"/>{numbered}</w:pPr>'
                f'<w:r><w:t xml:space="preserve">{escape(text)}</w:t></w:r></w:p>')

    body = []
    for style, value in blocks:
        if style == "table":
            rows = "".join("<w:tr>" + "".join(f"<w:tc>{para('Normal', c)}</w:tc>" for c in row) + "</w:tr>"
                           for row in value)  # type: ignore[union-attr]
            body.append(f"<w:tbl>{rows}</w:tbl>")
        else:
            body.append(para(style, str(value)))
    ns = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    with zipfile.ZipFile(path, "w") as doc:
        doc.writestr("[Content_Types].xml", "<Types/>")
        doc.writestr("word/document.xml", f'<?xml version="1.0"?><w:document {ns}><w:body>{"".join(body)}'
                     "</w:body></w:document>")
        doc.writestr("word/styles.xml", f'<?xml version="1.0"?><w:styles {ns}><w:style w:styleId="Heading1">'
                     '<w:name w:val="heading 1"/></w:style><w:style w:styleId="Heading2"><w:name w:val="heading 2"/>'
                     '</w:style><w:style w:styleId="Title"><w:name w:val="Title"/></w:style></w:styles>')
    return path


def speech(path, *sentences, pause=2.5):
    """A recording of ``sentences`` spoken by espeak-ng (Debian), ``pause`` seconds of silence between them.

    Other formats than .wav are encoded from it with PyAV (faster-whisper's decoder).
    """
    import subprocess
    import wave

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    frames, rate = b"\0\0" * 11025, 22050  # half a second of silence first: a word at the very start is lost
    for i, sentence in enumerate(sentences):
        part = path.with_name(f".{path.stem}.{i}.wav")
        subprocess.run(["espeak-ng", "-w", str(part), sentence], check=True, timeout=60)
        with wave.open(str(part), "rb") as w:
            rate = w.getframerate()
            frames += w.readframes(w.getnframes()) + b"\0\0" * int(rate * pause)
        part.unlink()
    wav = path if path.suffix == ".wav" else path.with_name(f".{path.stem}.wav")
    with wave.open(str(wav), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(frames)
    if wav != path:
        _encode(wav, path)
        wav.unlink()
    return path


def _encode(wav, path):
    import av

    codec, rate = {".mp3": ("libmp3lame", 22050), ".ogg": ("libopus", 48000), ".flac": ("flac", 22050)}[path.suffix]
    with av.open(str(wav)) as source, av.open(str(path), "w") as target:
        stream = target.add_stream(codec, rate=rate)
        for frame in source.decode(audio=0):
            frame.pts = None
            for packet in stream.encode(frame):
                target.mux(packet)
        for packet in stream.encode(None):
            target.mux(packet)
