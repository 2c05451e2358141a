"""A question for things and their property answers with a document's table, every row cited."""

import subprocess
import sys

from karaka.app.runner import run_ingest, run_query
from karaka.config import Context

TABLE = """# Kiln guide

The kiln fires clay at several settings.

## Firing programs

| Program | Peak temperature | Duration |
|---|---|---|
| Bisque | 1000 C | 8 hours |
| Glaze | 1240 C | 10 hours |
| Raku | 950 C | 1 hour |

## Care

Wipe the shelves after every firing.
"""


def test_a_markdown_table_answers_row_by_row(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kiln.md").write_text(TABLE, encoding="utf-8")
    (docs / "notes.html").write_text("<html><body><h1>Glazes</h1><table><tr><th>Glaze</th><th>Colour</th></tr>"
                                     "<tr><td>Celadon</td><td>green</td></tr><tr><td>Tenmoku</td><td>brown</td></tr>"
                                     "</table></body></html>", encoding="utf-8")
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, docs)
    result = run_query(ctx, "What are the firing programs and their peak temperatures?")
    assert result["status"] == "GROUNDED" and result["answer_mode"] == "table"
    rows = result["table"]["rows"]
    assert [r["cells"] for r in rows] == [["Program Bisque", "1000 C"], ["Program Glaze", "1240 C"],
                                          ["Program Raku", "950 C"]]
    assert [r["citation"]["line_number"] for r in rows] == [9, 10, 11]
    assert all(r["cells"][1] in r["citation"]["text"] for r in rows)  # each row proved by its own line
    assert result["answer"].splitlines()[0] == "| firing programs | peak temperatures | source |"
    html = run_query(ctx, "List each glaze with its colour.")
    assert [r["cells"][1] for r in html["table"]["rows"]] == ["green", "brown"]
    plain = run_query(ctx, "What should you wipe after every firing?")
    assert "table" not in plain and plain["answer_mode"] != "table"
    shown = subprocess.run([sys.executable, "-m", "karaka.app.cli", "ask", "--workspace", ctx.workspace, "--llm", "none",
                            "What are the firing programs and their durations?"], capture_output=True, text=True,
                           timeout=300)
    assert "| Program Raku | 1 hour | [kiln, § Firing programs, line 11] |" in shown.stdout


def test_prose_that_gives_one_thing_its_value_a_sentence_answers_as_a_table(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "harbours.txt").write_text(
        "The coast has three harbours.\n\nThe harbour of Aska is guarded by keeper Lio.\n"
        "The harbour of Velm is guarded by keeper Mara, who came from the hills.\n\n"
        "The harbour of Orm is small. The keeper of the harbour of Orm is Tova.\n\n"
        "Fishermen sell their catch at dawn.\n", encoding="utf-8")
    (docs / "rivers.txt").write_text("The river Avon has a depth of 40 metres.\nThe river Ouse has a depth of 12 metres.\n",
                                     encoding="utf-8")
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, docs)
    result = run_query(ctx, "What are the harbours and their keepers?")
    assert result["status"] == "GROUNDED" and result["answer_mode"] == "table"
    rows = [(r["cells"], r["citation"]["line_number"]) for r in result["table"]["rows"]]
    assert sorted(rows) == [(["harbour of Aska", "Lio"], 3), (["harbour of Orm", "Tova"], 6),
                            (["harbour of Velm", "Mara"], 4)]
    assert "lines each give one of the harbours its keepers" in result["evidence"]["why"]
    depths = run_query(ctx, "List each river with its depth.")
    assert [r["cells"] for r in depths["table"]["rows"]] == [["river Avon", "40 metres"], ["river Ouse", "12 metres"]]
    assert run_query(ctx, "What are the harbours and their depths?").get("answer_mode") != "table"  # no such values
