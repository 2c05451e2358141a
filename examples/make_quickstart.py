"""Write examples/quickstart.ipynb (the design document's twelve-cell outline) from this file.

Run ``python examples/make_quickstart.py`` after editing a cell; CI executes the notebook.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

INTRO = """# Karaka quickstart

The design document's twelve cells, on the package: each cell is thin, the LangGraph graphs do
the work. Offline by default (`KARAKA_LLM=none`: the spaCy analyzer extracts, WordLlama embeds);
set `KARAKA_LLM` to e.g. `huggingface:nvidia/Llama-3.1-Nemotron-Nano-8B-v1` or
`openai:MODEL@http://127.0.0.1:8000/v1` for the full GSV pipeline. Every cell can be re-run:
models are not reloaded and nothing is duplicated."""

CELLS = [
    '''# CELL 1: Setup & dependencies (install once: bash scripts/setup.sh)
import json
import os
from importlib import resources
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LANGSMITH_TRACING", "false")

import sys

import karaka
from karaka import Karaka
from karaka.config import Context
from karaka.logs import show_notices

show_notices(sys.stdout)  # the library is quiet; the notebook shows its notices ("model already loaded")

WORKSPACE = os.environ.get("KARAKA_NOTEBOOK_WORKSPACE", "notebook_workspace")
LLM = os.environ.get("KARAKA_LLM", "none")
CORPUS = Path(str(resources.files("karaka") / "data" / "corpus"))
ENTITY_SIMILARITY_THRESHOLD = 0.85
print(f"✅ karaka {karaka.__version__} · workspace {WORKSPACE} · llm {LLM}")''',
    '''# CELL 2: Load models (cached per process: re-running this cell reloads nothing)
from karaka.models import load_embeddings, load_llm

embeddings = load_embeddings("wordllama")
llm = load_llm(LLM)
dim = len(embeddings.embed_query("Rama"))
print(f"✅ embeddings: WordLlama, {dim} dims")
print(f"✅ llm: {type(llm).__name__}" if llm is not None else "⚠️  no LLM: parser extraction, extractive answers")''',
    '''# CELL 3: Graph & vector store (NetworkX MultiDiGraph, FAISS, entity resolver) in one workspace
kb = Karaka(workspace=WORKSPACE, llm=LLM, resolver_threshold=ENTITY_SIMILARITY_THRESHOLD)
ws = kb.services.workspace
print(f"✅ graph: {len(ws.graph)} nodes · vectors: {len(ws.vectors)} · "
      f"resolver threshold {ws.resolver.threshold}")''',
    '''# CELL 4: Load prompts (one text file per prompt in karaka/prompts/defaults; placeholders checked)
prompts = kb.services.prompts
spec_keys = ["kriya_extraction_prompt", "kriya_extraction_feedback_prompt", "kriya_scoring_prompt",
             "kriya_verification_prompt", "query_decomposition_prompt", "query_scoring_prompt",
             "query_verification_prompt"]
missing = [k for k in spec_keys if k not in prompts.templates]
print(f"✅ {len(prompts.templates)} prompts loaded" if not missing else f"❌ missing prompts: {missing}")''',
    '''# CELL 5: Core functions: isolated LLM calls and JSON recovery from messy output
from karaka.jsonparse import recover_json

messy = "<think>hmm</think> Sure! ```json\\n{'verb': 'give', 'karakas': {'KARTA': 'Rama',},}\\n```"
parsed = recover_json(messy)
print(f"✅ recovered JSON: {parsed}")
if llm is not None:
    from karaka.models.call import call_llm_isolated
    reply = call_llm_isolated(llm, prompts["system_prompt"], "Say OK.", prompt_key="smoke", max_tokens=8)
    print(f"✅ isolated call: {reply.text!r} ({reply.prompt_tokens} prompt tokens)")''',
    '''# CELL 6: The GSV-Retry engine (one LangGraph subgraph; here with the simulated LLM)
from karaka.graphs.gsv import run_gsv

line = "Rama gave the bow to Lakshmana."
gsv_ctx = Context(workspace=WORKSPACE, llm=LLM if llm is not None else "simulated")
out = run_gsv({"task": "kriya", "source": f"[L1] {line}", "ref": {"doc_id": "demo", "first_line": 1,
               "last_line": 1, "text": line}}, gsv_ctx)
icon = "✅" if out["golden"] else "❌"
print(f"{icon} GSV {out['status']} after {out['attempt']} attempt(s), {out['llm_calls']} LLM calls, "
      f"fast path {out['fast_path']}")
print(f"   golden: {json.dumps(out['golden'])}")''',
    '''# CELL 7: Graph database: a strict schema (3 node types, 10 relations); bad writes change nothing
from karaka.store.schema import RELATIONS, SchemaError

before = ws.graph.stats()["edges"]
try:
    ws.graph.add_edge("no_such_kriya", "Rama", "HAS_KARTA")
    print("❌ an invalid edge was accepted")
except SchemaError as exc:
    print(f"✅ rejected as expected ({exc.field}): {exc}")
assert ws.graph.stats()["edges"] == before
print(f"✅ relations: {', '.join(sorted(RELATIONS))}")''',
    '''# CELL 8: Ingestion step 1: load documents, split into lines, Document nodes + FAISS vectors
step1 = kb.ingest(CORPUS, stop_after="embed")
print(f"📄 documents: {', '.join(step1.get('doc_ids') or []) or 'unchanged'}")
print(f"   ✓ {step1['graph']['nodes_by_type'].get('Document', 0)} Document nodes, {step1['vectors']} vectors")''',
    '''# CELL 9: Ingestion step 2: GSV-Retry extraction per line window, write Kriyās and kāraka edges
step2 = kb.ingest(CORPUS, stop_after="write")
counts = step2["graph"]["nodes_by_type"]
print(f"✅ {counts.get('Kriya', 0)} Kriyās, {counts.get('Entity', 0)} entities")
print(f"   edges: {step2['graph']['edges_by_relation']}")''',
    '''# CELL 10: Ingestion step 3: coreference, metaphors, entity types, causality; then the report
report = kb.ingest(CORPUS)
if report.get("paused"):  # this cell was re-run: the run already finished
    report = json.loads((Path(WORKSPACE) / "report.json").read_text())
print(f"✅ post-processing: {report.get('post_processing')}")
rel = ws.graph.stats()["edges_by_relation"]
print(f"   IS_SAME_AS {rel.get('IS_SAME_AS', 0)} · CAUSES {rel.get('CAUSES', 0)} · "
      f"schema violations {len(ws.graph.violations())}")''',
    '''# CELL 11: The query pipeline: verified plan → traversal → grounded answer with citations
def ask(question, trace=False):
    result = kb.ask(question)
    print(f"❓ {question}\\n   {result['answer']}  [{result['status']}, {result['retrieval']}]")
    for cite in result["citations"]:
        print(f"   [{cite['doc_id']}, Line {cite['line_number']}] {cite['text']}")
    for step in result["reasoning_trace"] if trace else []:
        print(f"      → {step}")
    return result

first = ask("Who killed Ravana?", trace=True)
print("✅ grounded" if first["status"] == "GROUNDED" else f"⚠️  {first['status']}")''',
    '''# CELL 12: Run the sample queries and save query_results.json
from karaka.store.atomic import atomic_write_text

questions = json.loads((CORPUS.parent / "questions.json").read_text())
results = [ask(q) for q in questions]
atomic_write_text(Path(WORKSPACE) / "query_results.json", json.dumps(results, indent=2, ensure_ascii=False))
grounded = sum(r["status"] == "GROUNDED" for r in results)
print(f"✅ {grounded}/{len(results)} grounded; saved {Path(WORKSPACE) / 'query_results.json'}")''',
]


def build() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(INTRO)] + [nbformat.v4.new_code_cell(c) for c in CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


if __name__ == "__main__":
    target = Path(__file__).with_name("quickstart.ipynb")
    nbformat.write(build(), target)
    print(f"wrote {target}")
