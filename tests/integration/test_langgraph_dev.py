"""`langgraph dev` serves the three graphs offline and mounts /chat (langgraph.json's http.app)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from karaka.app.runner import run_ingest
from karaka.config import Context
from tests.fakes import write_doc
from tests.server_util import free_port, sse_events, wait_http

pytestmark = [pytest.mark.server, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[2]


def _config(tmp_path: Path, workspace: Path) -> Path:
    """The repo's langgraph.json with absolute paths and the test workspace in env."""
    config = json.loads((REPO / "langgraph.json").read_text())
    graphs = {name: str((REPO / spec.split(":")[0]).resolve()) + ":" + spec.split(":")[1]
              for name, spec in config["graphs"].items()}
    env = {"KARAKA_WORKSPACE": str(workspace), "KARAKA_LLM": "none", "KARAKA_EXTRACTOR": "parser",
           "LANGSMITH_TRACING": "false", "HF_HUB_OFFLINE": "1"}
    path = tmp_path / "langgraph.json"
    path.write_text(json.dumps({**config, "dependencies": [str(REPO)], "graphs": graphs, "env": env}))
    return path


def test_langgraph_dev_runs_the_graphs_and_mounts_chat(tmp_path):
    docs = tmp_path / "docs"
    write_doc(docs, "test_doc_1.txt", "Rama gave the bow to Lakshmana.", "He used it to kill Ravana.")
    workspace = tmp_path / "ws"
    run_ingest(Context(workspace=str(workspace), llm="none", extractor="parser"), docs)
    write_doc(tmp_path / "more", "hanuman.txt", "Hanuman carried the mountain to Lanka.")

    port = free_port()
    env = {**os.environ, "LANGSMITH_TRACING": "false", "LANGGRAPH_CLI_NO_ANALYTICS": "1"}
    command = [str(Path(sys.executable).parent / "langgraph"), "dev", "--config", str(_config(tmp_path, workspace)),
               "--port", str(port), "--host", "127.0.0.1", "--no-browser", "--no-reload"]
    process = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{base}/ok", process, seconds=120)
        with httpx.Client(base_url=base, timeout=60) as client:
            assistants = client.post("/assistants/search", json={"limit": 10}).json()
            by_graph = {a["graph_id"]: a["assistant_id"] for a in assistants}
            assert set(by_graph) >= {"gsv", "ingest", "query"}
            schemas = client.get(f"/assistants/{by_graph['query']}/schemas").json()
            assert "question" in schemas["input_schema"]["properties"]
            assert "workspace" in json.dumps(schemas["context_schema"])

            waited = client.post("/runs/wait", json={"assistant_id": "query",
                                                      "input": {"question": "Who killed Ravana?"}}).json()
            assert "result" in waited, waited
            assert waited["result"]["answers"] == ["He (Rama)"] and waited["result"]["status"] == "GROUNDED"

            gsv = client.post("/runs/wait", json={
                "assistant_id": "gsv", "context": {"llm": "simulated"},
                "input": {"task": "kriya", "source": "[L1] Rama gave the bow to Lakshmana.",
                          "ref": {"doc_id": "studio", "first_line": 1, "last_line": 1}}}).json()
            assert gsv.get("status") == "accepted" and gsv["llm_calls"] == 5, gsv

            with client.stream("POST", "/runs/stream", json={
                    "assistant_id": "ingest", "input": {"path": str(tmp_path / "more")},
                    "stream_mode": ["custom"]}) as response:
                events = sse_events(response)
            custom = [data for name, data in events if name.startswith("custom")]
            assert any(e.get("event") == "stage" and e.get("stage") == "load" for e in custom)
            assert any(e.get("event") == "report" for e in custom)

            # Streaming the steps with subgraphs, as Studio does, runs the GSV loop as a LangGraph child.
            with client.stream("POST", "/runs/stream", json={
                    "assistant_id": "query", "input": {"question": "Who killed Ravana?"},
                    "context": {"llm": "simulated", "llm_plans": "always"}, "stream_mode": ["updates"],
                    "stream_subgraphs": True}) as response:
                events = sse_events(response)
            inner = {key for name, data in events if name.startswith("updates|plan") and isinstance(data, dict)
                     for key in data}
            assert {"start_attempt", "score", "verify", "cross_validate"} <= inner, [n for n, _ in events]

            health = client.get("/health")
            assert health.status_code == 200 and health.json()["documents"] == 2
            chat = client.post("/chat", json={"messages": "What did Hanuman carry?"}).json()
            assert chat["output"]["answers"] == ["the mountain"]
    finally:
        process.terminate()
        try:
            output = process.communicate(timeout=30)[0]
        except subprocess.TimeoutExpired:
            process.kill()
            output = process.communicate()[0]
    assert "BlockingError" not in output
