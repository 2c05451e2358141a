"""Settings presets: each sets its group below what is given explicitly."""

import pytest

from karaka.config import PRESETS, resolve_context


def test_a_preset_sets_its_group_and_explicit_settings_win(tmp_path):
    strong = resolve_context({"workspace": str(tmp_path), "preset": "strong-model", "llm": "simulated"}, env={})
    assert (strong.llm_writes, strong.llm_plans, strong.coreference_llm, strong.metaphors) == (True, "always", True, True)
    small = resolve_context({"workspace": str(tmp_path), "preset": "small-model", "llm": "simulated",
                             "llm_writes": True}, env={"KARAKA_LLM_PLANS": "always"})
    assert small.llm_writes is True and small.llm_plans == "always" and small.coreference_llm is False
    offline = resolve_context({"workspace": str(tmp_path), "preset": "offline"}, env={})
    assert offline.llm == "none" and offline.extractor == "parser" and offline.metaphors is False


def test_every_preset_names_real_settings_and_a_wrong_one_is_named(tmp_path):
    for values in PRESETS.values():
        resolve_context({"workspace": str(tmp_path), "llm": "simulated", **values}, env={})  # every name is a setting
    with pytest.raises(ValueError, match="'preset': 'fast' is none of offline, small-model, strong-model"):
        resolve_context({"workspace": str(tmp_path), "preset": "fast"}, env={})
