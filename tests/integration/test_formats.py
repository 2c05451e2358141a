"""Documents as users have them: PDFs cited by page without their furniture, scans read by OCR,
HTML main text, Markdown code and tables, other languages. Every file is made here."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from karaka.app.runner import run_ingest, run_query
from karaka.config import Context
from karaka.loading import DocumentError, load_file
from karaka.services import get_services
from tests.fakes import scanned, text_pdf
from tests.server_util import serve_in_thread

HEADER = "Programming with libfoo"
WIDE = "The library keeps a small table of block sizes for every stream it opens, and it has a constant overhead in the region of"


def manual_pdf() -> bytes:
    """Two pages with a running header, page numbers, and a sentence that runs over the page break."""
    first = [(72, 760, HEADER), (72, 700, "Introduction"), (72, 680, "Rama wrote the library in the spring of 1996."),
             (72, 600, WIDE), (300, 30, "1")]
    second = [(72, 760, HEADER), (72, 700, "50 bytes per block, whatever the size of the block."),
              (72, 680, "Sita tested the library on a large machine."), (300, 30, "2")]
    return text_pdf([first, second])


def ingest(tmp_path: Path, docs: Path) -> Context:
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    report = run_ingest(ctx, docs)
    assert report["documents"] >= 1 and not report["skipped_files"], report
    return ctx


def test_pdf_lines_have_pages_and_no_furniture_and_sentences_cross_the_page_break(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "manual.pdf").write_bytes(manual_pdf())
    lines = load_file(docs / "manual.pdf", 1000, [])
    texts = [s.text for s in lines]
    assert not any(HEADER in t for t in texts)  # the running header is furniture
    assert not any(t.strip() in ("1", "2") or t.endswith((" 1", " 2")) for t in texts)  # so are page numbers
    whole = next(s for s in lines if s.text.startswith("The library keeps"))
    assert whole.text.endswith("in the region of 50 bytes per block, whatever the size of the block.")
    assert (whole.page, whole.page_line) == (1, 3)  # cited where it starts: headers are not counted
    sita = next(s for s in lines if s.text.startswith("Sita"))
    assert (sita.page, sita.page_line) == (2, 2)

    ctx = ingest(tmp_path, docs)
    result = run_query(ctx, "Who tested the library?")
    cited = result["citations"][0]
    assert (cited["page"], cited["page_line"]) == (2, 2) and "Sita" in result["answers"][0]
    assert "[manual, p. 2, line 2]" in result["answer"]
    node = get_services(ctx).workspace.graph.node("manual_L" + str(cited["line_number"]))
    assert node is not None and node["page"] == 2 and node["page_line"] == 2  # the export carries them too


def test_two_column_page_reads_column_by_column(tmp_path):
    rows = [(72, 700 - 14 * i, f"Left column line {i} says alpha.") for i in range(10)]
    rows += [(330, 700 - 14 * i, f"Right column line {i} says beta.") for i in range(10)]
    rows.sort(key=lambda r: (-r[1], r[0]))  # the content stream goes across the page, row by row
    path = tmp_path / "columns.pdf"
    path.write_bytes(text_pdf([rows]))
    texts = [s.text for s in load_file(path, 1000, [])]
    assert texts[:10] == [f"Left column line {i} says alpha." for i in range(10)]
    assert texts[10:] == [f"Right column line {i} says beta." for i in range(10)]


def test_a_page_reads_top_down_whatever_order_the_file_writes_its_lines_in(tmp_path):
    body = [(72, 680, "The pour function fills one cup."), (72, 640, "The steep function waits for the tea."),
            (72, 600, "The boil function heats the water.")]
    headings = [(72, 700, "pour(cup)"), (72, 660, "steep(pot)"), (72, 620, "boil(pot)")]  # a browser's print: headings last
    copy = [(500, 606, "COPY")]  # a code box's button beside a line: one line sharing a height does not make columns
    path = tmp_path / "printed.pdf"
    path.write_bytes(text_pdf([body + copy + headings]))
    texts = [s.text for s in load_file(path, 1000, [])]
    assert texts[:5] == ["pour(cup)", "The pour function fills one cup.", "steep(pot)",
                         "The steep function waits for the tea.", "boil(pot)"]


def test_a_page_written_column_by_column_keeps_its_columns(tmp_path):
    rows = [(72, 700 - 14 * i, f"Left column line {i} says alpha.") for i in range(10)]
    rows += [(330, 700 - 14 * i, f"Right column line {i} says beta.") for i in range(10)]
    path = tmp_path / "columns.pdf"
    path.write_bytes(text_pdf([rows]))  # the content stream runs down the left column, then the right
    texts = [s.text for s in load_file(path, 1000, [])]
    assert texts[:10] == [f"Left column line {i} says alpha." for i in range(10)]


def test_a_table_of_options_reads_row_by_row_not_as_two_columns(tmp_path):
    options = ["-a", "-b", "-q", "-Werror", "-x", "-z", "--dry", "-k", "-n", "-v"]
    rows = [(72, 700 - 14 * i, option) for i, option in enumerate(options)]
    rows += [(200, 700 - 14 * i, f"Describe what option number {i} does to every file it reads.")
             for i in range(10)]
    rows.sort(key=lambda r: (-r[1], r[0]))
    path = tmp_path / "options.pdf"
    path.write_bytes(text_pdf([rows]))
    texts = [s.text for s in load_file(path, 1000, [])]
    assert texts[3] == "-Werror Describe what option number 3 does to every file it reads."
    assert all(t.startswith(option + " ") for t, option in zip(texts, options, strict=True))


def test_html_keeps_what_either_of_trafilatura_s_settings_finds(tmp_path, monkeypatch):
    import trafilatura

    real = trafilatura.extract
    page = "<html><body>" + "".join(f"<p>Paragraph {i} tells how tool {i} reads its own file.</p>" for i in range(40))
    page += "</body></html>"

    def partial(html, **kwargs):  # as on a long docutils manual: the recall setting keeps a tenth
        text = real(html, **kwargs) or ""
        return "\n".join(text.splitlines()[:4]) if kwargs.get("favor_recall") else text

    monkeypatch.setattr(trafilatura, "extract", partial)
    (tmp_path / "manual.html").write_text(page)
    assert len(load_file(tmp_path / "manual.html", 1000, [])) == 40


def test_prose_between_the_code_blocks_of_a_hand_written_page_is_kept_in_order(tmp_path):
    page = tmp_path / "lamp-example.html"
    page.write_text("""<html><head><title>Lamp example</title></head><body>
<h2>Lamp example</h2>
We are often asked how the lamp() and wick() functions should be used, and here is an
annotated example in C that lights a lamp and trims its wick.  Read between the lines.
<pre><b>
#include "lamp.h"
</b></pre><!-- -->
<tt>BURN</tt> is simply the time in minutes a wick burns before it is trimmed.  Longer times
save oil.  On a cold night a time of 40 minutes should be used.
<pre><b>
#define BURN 25
</b></pre>
</body></html>""", encoding="utf-8")
    lines = load_file(page, 1000, [])
    texts = [(s.line, s.kind, s.text) for s in lines]
    burn = next(s for s in lines if s.text.startswith("BURN is simply"))
    assert burn.line == 8 and burn.kind == ""  # its own line, not the body's
    order = [t for _, _, t in texts]
    assert order.index('#include "lamp.h"') < order.index(burn.text) < order.index("#define BURN 25")
    assert any("annotated example" in t for t in order)


def test_a_list_of_bare_code_under_a_line_of_the_main_text_is_kept(tmp_path, monkeypatch):
    """trafilatura may drop list items that are only code ("<li><code>h1</code></li>"; on eSpeak NG's long
    markup.html it kept none, or ran them together as "h1h2h3h4hr"): they are what the line above says."""
    import trafilatura

    real = trafilatura.extract

    def without_items(html, **kwargs):
        text = real(html, **kwargs) or ""
        return "\n".join(line for line in text.splitlines() if " " in line.strip() and not line.startswith("- "))

    monkeypatch.setattr(trafilatura, "extract", without_items)
    prose = "".join(f"<p>The parser reads paragraph {i} of the page and keeps every word of it.</p>" for i in range(6))
    page = tmp_path / "markup.html"
    page.write_text(f"""<html><body><h1>Markup</h1>{prose}
<p>The reader ends a stanza at these tags:</p>
<ul><li><code>h1</code></li><li><code>hr</code></li></ul>
<p>It skips the words inside these tags:</p>
<ul><li><code>script</code></li></ul>
</body></html>""", encoding="utf-8")
    texts = [s.text for s in load_file(page, 1000, [])]
    at = texts.index("The reader ends a stanza at these tags:")
    assert texts[at + 1:at + 5] == ["h1", "hr", "It skips the words inside these tags:", "script"]


def test_a_scanned_pdf_is_read_by_ocr_with_its_page(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    page = [(72, 700, "Hanuman carried the medicine mountain to Lanka."), (72, 670, "The doctor healed Lakshmana.")]
    (docs / "scan.pdf").write_bytes(scanned(text_pdf([page])))
    lines = load_file(docs / "scan.pdf", 1000, [])
    assert all(s.method == "ocr" and s.page == 1 for s in lines)
    assert "Hanuman carried the medicine mountain to Lanka." in [s.text for s in lines]
    ctx = ingest(tmp_path, docs)
    result = run_query(ctx, "Who healed Lakshmana?")
    assert result["citations"][0]["page"] == 1 and "doctor" in result["answer"].lower()


def test_html_main_text_with_sections_and_file_lines(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    html = """<!DOCTYPE html>
<html><head><title>Limits</title><script>var menu = "Download Sitemap";</script></head>
<body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/about">About us and our menu</a></li></ul></nav>
<div class="content">
<h1>Limits In The Engine</h1>
<p>The engine was designed with a policy of avoiding arbitrary limits in every part of its code.</p>
<h2>Maximum Number Of Columns</h2>
<p>The default setting for MAX_COLUMN is 2000 in every build of the engine.</p>
<p>Rama raised the limit to 32767 for his own very large tables of data.</p>
</div>
<footer>Copyright the footer people, all rights reserved forever.</footer>
</body></html>
"""
    (docs / "limits.html").write_text(html)
    lines = load_file(docs / "limits.html", 1000, [])
    texts = [s.text for s in lines]
    assert not any("Sitemap" in t or "About us" in t or "footer people" in t for t in texts)
    column = next(s for s in lines if "MAX_COLUMN" in s.text)
    assert column.line == 9 and column.section == "Limits In The Engine › Maximum Number Of Columns"
    ctx = ingest(tmp_path, docs)
    result = run_query(ctx, "Who raised the limit?")
    assert "Rama" in result["answers"][0]
    assert "[limits, § Maximum Number Of Columns, line 10]" in result["answer"]


def test_markdown_code_and_tables_are_indexed_with_their_header_and_never_extracted(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "crypto.md").write_text("""# Web Crypto

## Supported algorithms

The table lists what each algorithm does.

| Algorithm | sign | verify | encrypt |
|-----------|------|--------|---------|
| 'X25519'  |      |        | ✔       |
| 'Ed25519' | ✔    | ✔      |         |

## Configuration

Rama wrote the configuration file by hand.

```ini
[server]
listen_port = 8443
```
""")
    lines = load_file(docs / "crypto.md", 1000, [])
    rows = [s for s in lines if s.kind == "table"]
    assert [s.text for s in rows] == ["Algorithm 'X25519': encrypt ✔", "Algorithm 'Ed25519': sign ✔, verify ✔"]
    assert rows[0].line == 9 and rows[0].section == "Web Crypto › Supported algorithms"
    code = [s for s in lines if s.kind == "code"]
    assert [(s.line, s.text) for s in code] == [(17, "[server]"), (18, "listen_port = 8443")]
    ctx = ingest(tmp_path, docs)
    kg = get_services(ctx).workspace.graph
    assert not [k for k in kg.nodes_of("Kriya") if kg.node(k)["line_number"] in (9, 10, 17, 18)]  # never parsed
    assert any(kg.node(k)["line_number"] == 14 for k in kg.nodes_of("Kriya"))  # the prose is
    result = run_query(ctx, "What is the listen_port?")
    assert any(c["line_number"] == 18 for c in result["citations"])
    assert "[crypto, § Configuration, line 18]" in result["answer"]
    result = run_query(ctx, "Which algorithm can verify?")
    assert result["citations"][0]["line_number"] == 10 and result["answers"] == ["Ed25519"]  # the row's quoted key


def test_ligatures_and_hyphenated_line_ends_are_undone(tmp_path):
    path = tmp_path / "man.txt"
    path.write_text("The ﬂag tells the program to keep the ﬁles it reads, and the de\u2010\n"
                    "fault is to remove them once they have been compressed into a single archive.\n")
    texts = [s.text for s in load_file(path, 1000, [])]
    assert texts == ["The flag tells the program to keep the files it reads, and the default is to remove them "
                     "once they have been compressed into a single archive."]


def test_a_word_hyphenated_at_a_pdf_line_end_is_one_word(tmp_path):
    # pdfium reads a typeset hyphen that ends a line as U+FFFE, with no line break after it
    path = tmp_path / "manual.pdf"
    path.write_bytes(text_pdf([[(72, 700, "Many desktop environments include the con-"),
                                (72, 686, "figuration options in their preferences.")]]))
    lines = load_file(path, 1000, [])
    assert [s.text for s in lines] == ["Many desktop environments include the configuration options in their "
                                       "preferences."]
    assert (lines[0].page, lines[0].page_line) == (1, 1)


def test_german_and_chinese_documents_are_indexed_and_found_in_their_language(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "gzip.de.txt").write_text(
        "Das Programm gzip verkleinert die Größe der angegebenen Dateien mit dem Lempel-Ziv-Verfahren.\n"
        "Die Datei wird durch eine Datei mit der Endung .gz ersetzt, die dieselben Rechte behält.\n"
        "Wenn keine Dateien angegeben sind, liest gzip von der Standardeingabe und schreibt auf die Standardausgabe.\n")
    (docs / "speex.zh.txt").write_text(
        "Speex 是一个开源的语音编解码器。它专为网络电话设计。它的比特率可以从二千到四万四千比特每秒。\n")
    (docs / "epic.txt").write_text("Rama gave the bow to Lakshmana.\n")
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    report = run_ingest(ctx, docs)
    assert any(w.startswith("not parsed (German") and "gzip.de.txt" in w for w in report["warnings"])
    assert any(w.startswith("not parsed (Chinese") and "speex.zh.txt" in w for w in report["warnings"])
    kg = get_services(ctx).workspace.graph
    assert not [k for k in kg.nodes_of("Kriya") if kg.node(k)["doc_id"] != "epic"]  # English only was parsed
    german = run_query(ctx, "Welche Endung hat die Datei nach der Kompression?")
    assert german["citations"][0]["doc_id"] == "gzip.de" and german["citations"][0]["line_number"] == 2
    chinese = run_query(ctx, "Speex 是为什么设计的？")
    assert chinese["citations"][0]["doc_id"] == "speex.zh"


def test_the_page_endpoints_give_the_page_and_serve_the_pdf(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "manual.pdf").write_bytes(manual_pdf())
    ctx = ingest(tmp_path, docs)
    from karaka.app.api import create_app

    with serve_in_thread(create_app(ctx, ingest_root=tmp_path)) as url, \
            httpx.Client(base_url=url, timeout=30) as client:
        view = client.get("/views/line", params={"doc_id": "manual", "page": 2, "line": 2}).json()
        assert view["page"] == 2 and view["citation"] == "[manual, p. 2, line 2]"
        assert view["file_url"] == "/documents/manual/file#page=2"
        assert all(line["page"] == 2 for line in view["lines"])  # the page's own text around the line
        served = client.get("/documents/manual/file")
        assert served.status_code == 200 and served.content == (docs / "manual.pdf").read_bytes()
        assert served.headers["content-type"] == "application/pdf"
        assert client.get("/documents/nothing/file").status_code == 404
        chat = client.post("/chat", json={"messages": "Who tested the library?"}).json()["output"]
        assert chat["citations"][0]["page"] == 2 and chat["citations"][0]["page_line"] == 2
        assert "[manual, p. 2, line 2]" in chat["answer"]
    with serve_in_thread(create_app(ctx, ingest_root=tmp_path / "elsewhere")) as url, \
            httpx.Client(base_url=url, timeout=30) as client:
        assert client.get("/documents/manual/file").status_code == 403  # outside the ingest root: not served
        view = client.get("/views/line", params={"doc_id": "manual", "page": 2, "line": 2}).json()
        assert "file_url" not in view and "outside the ingest root" in view["file_note"]  # no link that answers 403
    out = json.loads(json.dumps(run_query(ctx, "Who tested the library?")))
    assert out["citations"][0]["page"] == 2


def test_a_file_with_no_suffix_is_read_as_plain_text_and_a_binary_one_is_refused_by_name(tmp_path):
    """"LICENSE", "README", "COPYING": plain text with no suffix; an executable with none is no text."""
    (tmp_path / "LICENSE").write_text("Copyright 2021 Orla Venn\n\nLicensed under the Apache License.\n")
    assert [line.text for line in load_file(tmp_path / "LICENSE", 1000, [])] == [
        "Copyright 2021 Orla Venn", "Licensed under the Apache License."]
    (tmp_path / "tool").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00" * 50)
    with pytest.raises(DocumentError, match=r"tool: binary file"):
        load_file(tmp_path / "tool", 1000, [])


def test_a_pdf_s_option_entry_is_the_section_of_its_description_so_a_sentence_of_it_answers(tmp_path):
    from tests.fakes import grounded

    rows = [(72, 700, "Packing options"), (72, 680, "`--pack-level=<low|high>` [default: low]"),
            (72, 666, "Sets how hard the crates are packed by frobz."), (72, 652, "When high, nine passes are made."),
            (72, 630, "`--pack-size=<n>` [default: 4]"), (72, 616, "Sets the size of each crate.")]
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "frobz-manual.pdf").write_bytes(text_pdf([rows], fixed=True))  # the flags in Courier
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, docs)
    assert grounded(ctx, "How many passes are made when --pack-level is set to high?") == ["nine passes"]
    assert run_query(ctx, "How many passes are made when --pack-size is set to high?")["status"] != "GROUNDED"


def test_what_a_pdf_sets_in_a_fixed_pitch_font_is_quoted_as_code(tmp_path):
    """"run `frob seal`" in Courier inside Helvetica reads as Markdown writes code; a line all in Courier stays bare,
    and code that a line's end breaks in two is one."""
    rows = [(72, 700, "To keep the spool, run `frob seal` before you leave the desk, and `frob open` when you come"),
            (72, 686, "back. Should the seal fail while the desk is away from the spool for a long time, do then run `frob`"),
            (72, 672, "`unseal` to remove it."),
            (72, 650, "`frob seal --all`")]
    page = tmp_path / "frob.pdf"
    page.write_bytes(text_pdf([rows], fixed=True))
    texts = [s.text for s in load_file(page, 1000, []) if s.text]
    assert "To keep the spool, run `frob seal` before you leave the desk, and `frob open` when you come back." in texts
    assert "Should the seal fail while the desk is away from the spool for a long time, do then run `frob unseal` to remove it." in texts
    assert "frob seal --all" in texts


def test_a_table_that_lays_out_questions_and_answers_is_read_paragraph_by_paragraph(tmp_path):
    """A DocBook FAQ sets each answer's paragraphs in a table cell: one line a paragraph, not a row of the table."""
    page = tmp_path / "faq.html"
    page.write_text("""<html><body><h1>Kettle questions</h1>
<table summary="Q and A"><tr><td>1.1.<br>Why does it hum?<br>1.2.<br>Who made it?</td></tr>
<tr class="question"><td><b>1.1.</b></td><td><b>Why does the kettle hum?</b></td></tr>
<tr class="answer"><td></td><td><p>The element expands as it warms. It hums until the water boils.</p>
<p>Descale it every month with a cup of vinegar.</p></td></tr>
</table>
<table><tr><th>Model</th><th>Litres</th></tr><tr><td><p>Brisk</p></td><td>1.7</td></tr></table>
</body></html>""", encoding="utf-8")
    lines = load_file(page, 1000, [])
    texts = [s.text for s in lines]
    assert "Descale it every month with a cup of vinegar." in texts
    descale = next(s for s in lines if s.text.startswith("Descale"))
    assert descale.section.endswith("Why does the kettle hum?")  # the bold question titles its answer
    assert "The element expands as it warms." in texts and "It hums until the water boils." in texts
    assert "Why does it hum?" in texts and "1.2." in texts  # a line break parts them: not "Why does it hum?1.2."
    assert any("Brisk" in t and "1.7" in t for t in texts)  # a table of data keeps its rows


def test_myst_directives_that_hold_text_are_read_as_sphinx_shows_them(tmp_path):
    """A note, a tab and a version directive are text ("Changed in version 3.0: …"); a code block stays code."""
    page = tmp_path / "kettle.md"
    page.write_text("""# Kettle

```{versionadded} 2.1

```

The kettle keeps water warm.

```{versionchanged} 3.0
The kettle now whistles when the water boils.
```

(kettle-tabs)=

## Where the log is kept

````{tab} Linux
```
~/.cache/kettle
```
````

The log rotates weekly.

```{caution}
Never fill the kettle above the line.
```

```{code-block} python
kettle.boil()
```
""", encoding="utf-8")
    lines = {s.text: s for s in load_file(page, 1000, [])}
    assert lines["Added in version 2.1."].kind == ""
    assert lines["Changed in version 3.0: The kettle now whistles when the water boils."].kind == ""
    assert lines["Never fill the kettle above the line."].kind == ""
    assert lines["~/.cache/kettle"].kind == "code" and lines["~/.cache/kettle"].section.endswith("› Linux")
    assert lines["The log rotates weekly."].section == "Kettle › Where the log is kept"  # the tab is closed
    assert lines["kettle.boil()"].kind == "code" and not any("kettle-tabs" in t for t in lines)


def test_a_myst_role_keeps_its_text_as_sphinx_shows_it(tmp_path):
    """``{ref}`--lid <kettle-lid>` `` shows "--lid", a role with no title what it names, ``{pep}`8` `` "PEP 8"."""
    page = tmp_path / "kettle.md"
    page.write_text("Lift the lid with the {ref}`--lid <kettle-lid>` option or the {pypi}`kettlelib` package "
                    "(see {pep}`8`).\n", encoding="utf-8")
    assert [s.text for s in load_file(page, 1000, []) if s.text] == [
        "Lift the lid with the `--lid` option or the `kettlelib` package (see PEP 8)."]
