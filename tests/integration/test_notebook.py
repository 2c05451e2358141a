"""examples/quickstart.ipynb runs end to end offline (nbclient), and its cells can be re-run."""

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.slow  # real processes, servers or databases: not in the fast tier

REPO = Path(__file__).resolve().parents[2]


def _text(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            parts.append(f"ERROR {out['ename']}: {out['evalue']}")
        parts.append(out.get("text", ""))
    return "".join(parts)


def test_quickstart_runs_offline_and_cells_rerun_safely(tmp_path, monkeypatch):
    monkeypatch.setenv("KARAKA_NOTEBOOK_WORKSPACE", str(tmp_path / "ws"))
    monkeypatch.setenv("KARAKA_LLM", "none")
    nb = nbformat.read(REPO / "examples" / "quickstart.ipynb", as_version=4)
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    assert len(code) == 12
    assert [nb.cells[i].source.splitlines()[0].split(":")[0] for i in code] == [f"# CELL {n}" for n in range(1, 13)]

    client = NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    with client.setup_kernel():
        for index in code:
            client.execute_cell(nb.cells[index], index)
        first = {n: _text(nb.cells[i]) for n, i in enumerate(code, 1)}
        graph = json.loads((tmp_path / "ws" / "graph.json").read_text())
        results = json.loads((tmp_path / "ws" / "query_results.json").read_text())

        for n in (2, 3, 8, 9, 10, 12):  # re-run: no reload, no duplicates, same answers
            client.execute_cell(nb.cells[code[n - 1]], code[n - 1])
        again = {n: _text(nb.cells[code[n - 1]]) for n in (2, 3, 8, 9, 10, 12)}

    for n, text in {**first, **{f"{k}'": v for k, v in again.items()}}.items():
        assert "ERROR" not in text and "❌" not in text, f"cell {n}: {text}"
        assert "✅" in text or "📄" in text, f"cell {n} printed no progress line: {text}"
    assert "model already loaded: wordllama" in again[2]
    assert "Document nodes" in first[8] and "IS_SAME_AS" in first[10]
    graph_again = json.loads((tmp_path / "ws" / "graph.json").read_text())
    assert len(graph_again["nodes"]) == len(graph["nodes"]) > 0
    assert len(graph_again["edges"]) == len(graph["edges"])
    assert json.loads((tmp_path / "ws" / "query_results.json").read_text()) == results
    assert all(r["status"] == "GROUNDED" and r["citations"] for r in results)
