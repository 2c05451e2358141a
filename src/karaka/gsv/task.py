"""How one kind of extraction plugs into the GSV-Retry loop: its prompts, its schema, its checks."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from karaka.gsv.kriya import TOKENS_PER_KRIYA, KriyaExtraction
from karaka.jsonparse import JSONRecoveryError, recover_json


@functools.lru_cache(maxsize=16)
def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A task schema as JSON schema, for providers with constrained decoding."""
    return model.model_json_schema()


Check = Callable[[dict[str, Any], str], list[str]]
Confirm = Callable[[list[str], list[dict[str, Any]], str], list[str]]


@dataclass(frozen=True)
class GSVTask:
    """How one kind of extraction plugs into the loop.

    ``checks`` are the hard rule checks of one candidate; ``confirm`` returns the verifier's
    objections that the checker can confirm (an unconfirmed ALL_INVALID is asked again);
    ``correction_key`` is the generation prompt used when a parser draft (the seed) exists, and
    ``merge`` applies such a correction to the draft.
    """

    name: str
    generate_key: str
    source_field: str
    scoring_key: str
    verification_key: str
    schema: type[BaseModel]
    checks: Check | None = None
    confirm: Confirm | None = None
    correction_key: str | None = None
    output: Callable[[str, dict[str, Any] | None], dict[str, Any]] | None = None
    merge: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]] | None = None
    """Apply a correction to the draft it corrects (what the correction leaves out is kept)."""

    def budget(self, schema: dict[str, Any], configured: int) -> int:
        """Tokens a reply fitting ``schema`` may need: room for every Kriyā it may hold, at least ``configured``.

        A grammar keeps a reply inside the schema, but a reply cut off by its budget is still broken JSON.
        """
        most = schema.get("properties", {}).get("kriyas", {}).get("maxItems")
        return max(configured, TOKENS_PER_KRIYA * int(most) + 32) if most else configured

    def llm_schema(self, source: str, seed: dict[str, Any] | None = None) -> dict[str, Any]:
        """Return the JSON schema a candidate for ``source`` (correcting ``seed``) must fit.

        Providers with constrained decoding decode into it.
        """
        return self.output(source, seed) if self.output is not None else json_schema(self.schema)

    def parse(self, raw: str) -> tuple[dict[str, Any] | None, list[str]]:
        """Recover and validate a candidate; returns (data, errors)."""
        try:
            value = recover_json(raw)
        except JSONRecoveryError:
            return None, ["output is not JSON"]
        if isinstance(value, list) and self.schema is KriyaExtraction:
            value = {"kriyas": value}
        try:
            model = self.schema.model_validate(value)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "output"
            return None, [f"schema: {where}: {first['msg']}"]
        return model.model_dump(), []
