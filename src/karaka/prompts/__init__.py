"""Prompts: one text file per prompt in ``prompts/defaults/`` (package data); a user JSON file overrides them.

Every template's placeholders are checked at load time against ``PROMPT_FIELDS``,
and ``Prompts.render`` refuses a call whose fields differ from the template's.
"""

from __future__ import annotations

import json
import logging
import string
from importlib import resources
from pathlib import Path

from karaka.store.atomic import atomic_write_text

SPEC_KEYS = (
    "kriya_extraction_prompt", "kriya_extraction_feedback_prompt", "kriya_scoring_prompt",
    "kriya_verification_prompt", "query_decomposition_prompt", "query_scoring_prompt",
    "query_verification_prompt",
)

PROMPT_FIELDS: dict[str, frozenset[str]] = {
    "system_prompt": frozenset(),
    "kriya_extraction_prompt": frozenset({"lines"}),
    "kriya_extraction_feedback_prompt": frozenset({"feedback"}),
    "kriya_correction_prompt": frozenset({"lines", "draft"}),
    "kriya_scoring_prompt": frozenset({"source", "candidate"}),
    "kriya_verification_prompt": frozenset({"source", "candidates"}),
    "kriya_batch_validation_prompt": frozenset({"items"}),
    "query_decomposition_prompt": frozenset({"question"}),
    "query_scoring_prompt": frozenset({"source", "candidate"}),
    "query_verification_prompt": frozenset({"source", "candidates"}),
    "metaphor_extraction_prompt": frozenset({"source"}),
    "metaphor_scoring_prompt": frozenset({"source", "candidate"}),
    "metaphor_verification_prompt": frozenset({"source", "candidates"}),
    "coreference_prompt": frozenset({"pronoun", "line", "context", "hint", "options"}),
    "entity_type_prompt": frozenset({"entity", "context", "types"}),
    "entity_type_check_prompt": frozenset({"entity", "context", "first", "second"}),
    "causality_prompt": frozenset({"first", "second", "context"}),
    "answer_read_prompt": frozenset({"hints", "lines", "question"}),
    "chapter_summary_prompt": frozenset({"place", "lines"}),
}


def template_fields(template: str) -> frozenset[str]:
    """The ``{name}`` placeholders of a str.format template."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name)


notice = logging.getLogger("karaka.notice")


def default_prompts() -> dict[str, str]:
    """The packaged defaults: ``defaults/KEY.txt`` for every key (one trailing newline dropped)."""
    folder = resources.files("karaka.prompts").joinpath("defaults")
    out = {}
    for key in PROMPT_FIELDS:
        text = folder.joinpath(f"{key}.txt").read_text(encoding="utf-8")
        out[key] = text[:-1] if text.endswith("\n") else text
    return out


class Prompts:
    """A checked set of prompt templates."""

    def __init__(self, templates: dict[str, str], source: str = "<defaults>"):
        self.source = source
        merged = {**default_prompts(), **templates}
        for key, expected in PROMPT_FIELDS.items():
            if key not in merged:
                raise ValueError(f"{source}: prompt {key!r} is missing")
            found = template_fields(merged[key])
            if found != expected:
                raise ValueError(
                    f"{source}: prompt {key!r} has placeholders {sorted(found)}, "
                    f"expected {sorted(expected)}"
                )
        self.templates = merged

    def __getitem__(self, key: str) -> str:
        return self.templates[key]

    def render(self, key: str, **fields: object) -> str:
        """Fill a template; the fields passed must be exactly the template's."""
        expected = PROMPT_FIELDS[key]
        if set(fields) != expected:
            raise ValueError(f"prompt {key!r} takes {sorted(expected)}, got {sorted(fields)}")
        return self.templates[key].format(**fields)


def load_prompts(path: str | Path | None = None) -> Prompts:
    """Load prompts; a user path that does not exist is created with the defaults."""
    if not path:
        return Prompts({})
    path = Path(path)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(default_prompts(), indent=2, ensure_ascii=False))
        notice.info("created %s with the default prompts", path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}") from exc
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise ValueError(f"{path}: expected an object of prompt key -> template string")
    return Prompts(data, source=str(path))
