"""The cost said before a run: per-line figures from this workspace's runs, else the measured table."""

from karaka.config import Context
from karaka.estimate import MEASURED, describe, for_lines, per_line


def _report(llm: str, lines: int, extraction: int, post: int, seconds: float, window: int = 1) -> dict:
    return {"settings": {"llm": llm, "extractor": "llm", "strategy": "gsv", "window": window, "fast_path": True},
            "lines": lines, "seconds": seconds,
            "llm_calls": {"extraction": extraction, "post_processing": post, "prompt_tokens_per_line_mean": 500.0}}


def test_a_workspace_run_with_the_same_model_and_settings_is_the_basis_and_gives_the_time():
    ctx = Context(llm="openai:m@http://127.0.0.1:1/v1", extractor="llm", window=1)
    reports = [_report(ctx.llm, 100, 250, 30, 560.0), _report("other", 100, 900, 0, 10.0)]
    found = for_lines(ctx, 2, 40, 40, reports)
    assert found["extraction_requests"] == 100 and found["post_processing_requests"] == 12  # 2.5 and 0.3 a line
    assert found["requests"] == 112 and found["prompt_tokens"] == 20000
    assert found["seconds"] == 224  # 560 s for 280 requests: 2 s a request
    assert "earlier run" in found["basis"] and "about 112 LLM requests" in describe(found)


def test_without_runs_the_measured_setting_is_used_and_time_is_said_to_be_unknown():
    ctx = Context(llm="llamacpp:smollm2", extractor="llm", window=4, fast_path=True)
    found = for_lines(ctx, 1, 10, 8, [])
    requests, prompt, _ = MEASURED[("smollm2", 4, True)]
    assert found["extraction_requests"] == round(requests * 8) and found["prompt_tokens"] == round(prompt * 8)
    assert found["seconds"] is None and "time unknown" in describe(found)
    other = per_line(Context(llm="openai:x@http://127.0.0.1:1/v1", extractor="llm", window=3), [])
    assert "nearest" in other.basis and "Qwen" in other.basis and other.requests == MEASURED[("*", 4, True)][0]


def test_the_parser_alone_costs_no_request():
    found = for_lines(Context(llm="none", extractor="parser"), 1, 10, 10, [])
    assert found["requests"] == 0 and "no LLM requests" in describe(found)
