"""The openai provider against an OpenAI-compatible server on 127.0.0.1 (a small stand-in app).

The stand-in answers from the JSON schema each request carries, as a schema-constrained server
(vLLM, llama.cpp server) would; the test checks that Karaka sends the schemas.
"""

import json

from fastapi import FastAPI, Request

from karaka.config import Context
from karaka.graphs.gsv import run_gsv
from karaka.gsv.kriya import TOKENS_PER_KRIYA
from karaka.models import load_llm
from karaka.nodes.gsv import SCORE_TOKENS, VERDICT_TOKENS
from tests.server_util import serve_in_thread

EXTRACTION = {"kriyas": [{"line": 1, "verb": "give", "karakas": {"KARTA": "Rama", "KARMA": "bow",
                                                                 "SAMPRADANA": "Lakshmana"}}]}


def compatible_server(seen: list[dict]) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def complete(request: Request):
        body = await request.json()
        seen.append(body)
        schema = (body.get("response_format") or {}).get("json_schema", {}).get("schema", {})
        props = schema.get("properties", {})
        if "kriyas" in props:
            content = json.dumps(EXTRACTION)
        elif "score" in props:
            content = json.dumps({"reasoning": "faithful", "score": 97})
        elif "choice" in props:
            content = json.dumps({"choice": "Candidate_A", "reasoning": "roles match"})
        else:
            content = "no schema given"
        return {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                "choices": [{"index": i, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}} for i in range(body.get("n", 1))],
                "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}}

    return app


def test_openai_provider_sends_json_schemas_and_runs_the_loop(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    seen: list[dict] = []
    with serve_in_thread(compatible_server(seen)) as url:
        spec = f"openai:tiny-test-model@{url}/v1"
        ctx = Context(workspace=str(tmp_path), llm=spec, max_tokens=64, parser_candidate=False)
        assert type(load_llm(spec, announce=False)).__name__ == "ChatOpenAI"
        out = run_gsv({"task": "kriya", "source": "[L1] Rama gave the bow to Lakshmana.",
                       "ref": {"doc_id": "d", "first_line": 1, "last_line": 1}}, ctx)
    # one request per prompt: the three scores of the candidate are one request with n=3 (prompt read once)
    assert out["status"] == "accepted" and out["fast_path"] and out["llm_calls"] == 3
    assert out["golden"]["kriyas"][0]["karakas"]["SAMPRADANA"] == "Lakshmana"
    assert out["prompt_tokens"] == 3 * 11  # the server's usage figures are counted, a shared prompt once
    kinds = [json.dumps(b["response_format"]["json_schema"]["schema"]) for b in seen]
    assert sum('"kriyas"' in k for k in kinds) == 1 and sum('"score"' in k for k in kinds) == 1
    assert sum('"choice"' in k for k in kinds) == 1
    assert [b.get("n", 1) for b in seen if '"score"' in json.dumps(b["response_format"])] == [3]
    budgets = {json.dumps(sorted(b["response_format"]["json_schema"]["schema"]["properties"])):
               b.get("max_tokens", b.get("max_completion_tokens")) for b in seen}
    assert all(b["model"] == "tiny-test-model" for b in seen)
    # generation gets room for every Kriyā its schema allows (one verb here), more than the configured 64;
    # a judge's fixed budget is enough for its capped JSON
    assert budgets == {'["kriyas"]': TOKENS_PER_KRIYA + 32, '["reasoning", "score"]': SCORE_TOKENS,
                       '["choice", "reasoning", "violations"]': VERDICT_TOKENS}


def test_a_greedy_call_asks_for_temperature_zero_and_the_loop_s_calls_still_sample(monkeypatch):
    from karaka.models.call import call_llm_isolated

    monkeypatch.setenv("OPENAI_API_KEY", "test")
    seen: list[dict] = []
    with serve_in_thread(compatible_server(seen)) as url:
        llm = load_llm(f"openai:tiny-test-model@{url}/v1", announce=False)
        call_llm_isolated(llm, "system", "read these lines", prompt_key="answer_read_prompt", greedy=True)
        call_llm_isolated(llm, "system", "extract", prompt_key="kriya_generation_prompt")
    assert [b["temperature"] for b in seen] == [0.0, 0.7]
