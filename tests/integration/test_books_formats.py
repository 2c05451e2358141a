"""EPUB and Word documents, generated in the test from made-up text: read, cited by chapter or heading, refused clearly."""

import zipfile

import pytest

from karaka.app.runner import run_ingest, run_query
from karaka.config import Context
from karaka.loading import DocumentError, load_and_refine_documents, load_file
from tests.fakes import docx, epub

VOYAGE = [("The Harbour", ["The Heron left the harbour of Aska with nine sailors.",
                           "The captain, Lio, steered toward the western isles."]),
          ("The Storm", ["A storm tore the sail on the third night.", "Lio mended the sail with tarred rope."])]


def test_an_epub_is_read_chapter_by_chapter_with_its_table_of_contents(tmp_path):
    lines = load_file(epub(tmp_path / "voyage.epub", VOYAGE), 1000, [])
    storm = next(s for s in lines if "tore the sail" in s.text)
    assert (storm.chapter, storm.section) == ("2", "The Storm")
    assert len({s.line for s in lines}) == len({(s.line, s.sentence) for s in lines})  # a line number each
    assert [s.text for s in lines if s.kind == "heading"] == ["The Harbour", "The Storm"]


def test_an_epub_without_a_table_of_contents_is_titled_by_its_headings(tmp_path):
    lines = load_file(epub(tmp_path / "voyage.epub", VOYAGE, toc=False), 1000, [])
    assert next(s for s in lines if "tarred rope" in s.text).section == "The Storm"


def test_a_word_document_s_headings_lists_and_tables(tmp_path):
    path = docx(tmp_path / "report.docx", [
        ("Title", "Harbour report"), ("Heading1", "Repairs"),
        ("Normal", "The crew replaced the mast in March."),
        ("List", "Tar the rope"), ("List", "Mend the sail"),
        ("Heading1", "Costs"), ("table", [["Item", "Cost"], ["Mast", "40 coins"], ["Rope", "6 coins"]]),
    ])
    lines = load_file(path, 1000, [])
    mast = next(s for s in lines if "replaced the mast" in s.text)
    assert mast.section == "Harbour report › Repairs" and mast.line == 3
    assert [s.text for s in lines if s.text.startswith(("Tar", "Mend"))] == ["Tar the rope", "Mend the sail"]
    assert next(s for s in lines if s.kind == "table").text == "Item Mast: Cost 40 coins"


def test_bad_books_get_one_clear_line_and_the_rest_of_the_folder_loads(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    epub(docs / "voyage.epub", VOYAGE)
    epub(docs / "locked.epub", VOYAGE, encrypted="OEBPS/ch1.xhtml")
    (docs / "broken.epub").write_bytes(b"PK\x03\x04 not really a zip")
    with zipfile.ZipFile(docs / "photos.docx", "w") as z:  # a ZIP of something else, renamed
        z.writestr("holiday.jpg", b"\xff\xd8\xff")
    (docs / "notes.docx").write_text("plain text named .docx", encoding="utf-8")
    loaded = load_and_refine_documents(docs)
    assert [d.name for d in loaded.docs] == ["voyage"]
    errors = {s["path"].rsplit("/", 1)[-1]: s["error"] for s in loaded.skipped}
    assert "DRM-protected EPUB" in errors["locked.epub"]
    assert "not a valid EPUB" in errors["broken.epub"]
    assert "not a Word document" in errors["photos.docx"]
    assert "not a valid Word document" in errors["notes.docx"]
    with pytest.raises(DocumentError, match="DRM"):
        load_file(docs / "locked.epub", 1000, [])


def test_fonts_obfuscated_by_the_publisher_are_not_drm(tmp_path):
    path = epub(tmp_path / "voyage.epub", VOYAGE, encrypted="OEBPS/fonts/serif.otf")
    assert any("tore the sail" in s.text for s in load_file(path, 1000, []))


def test_an_epub_and_a_word_document_answer_with_their_chapter_and_heading(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    epub(docs / "voyage.epub", VOYAGE)
    docx(docs / "report.docx", [("Heading1", "Repairs"), ("Normal", "The crew replaced the mast in March.")])
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, docs)
    result = run_query(ctx, "How many sailors left the harbour of Aska?")
    assert result["status"] == "GROUNDED" and result["answers"] == ["nine sailors"]
    assert result["citations"][0]["chapter"] == "1" and "[voyage, ch. 1, line" in result["answer"]
    month = run_query(ctx, "When did the crew replace the mast?")
    assert "[report, § Repairs, line 2]" in month["answer"] and month["answers"] == ["in March"]
    assert run_query(ctx, "What happens in voyage chapter 2?")["citations"][0]["chapter"] == "2"
