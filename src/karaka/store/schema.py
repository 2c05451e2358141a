"""The strict schema: three node types, ten relations, checked on every write."""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger("karaka.schema")

NODE_TYPES = ("Kriya", "Entity", "Document")

# relation -> (source type, target type)
RELATIONS: dict[str, tuple[str, str]] = {
    "HAS_KARTĀ": ("Kriya", "Entity"),
    "HAS_KARMA": ("Kriya", "Entity"),
    "USES_KARANA": ("Kriya", "Entity"),
    "TARGETS_SAMPRADĀNA": ("Kriya", "Entity"),
    "FROM_APĀDĀNA": ("Kriya", "Entity"),
    "LOCATED_IN": ("Kriya", "Entity"),
    "OCCURS_AT": ("Kriya", "Entity"),
    "IS_SAME_AS": ("Entity", "Entity"),
    "CAUSES": ("Kriya", "Kriya"),
    "CITED_IN": ("Kriya", "Document"),
}

KARAKA_TO_RELATION: dict[str, str] = {
    "KARTA": "HAS_KARTĀ",
    "KARMA": "HAS_KARMA",
    "KARANA": "USES_KARANA",
    "SAMPRADANA": "TARGETS_SAMPRADĀNA",
    "APADANA": "FROM_APĀDĀNA",
    "ADHIKARANA_SPATIAL": "LOCATED_IN",
    "ADHIKARANA_TEMPORAL": "OCCURS_AT",
}
RELATION_TO_KARAKA = {v: k for k, v in KARAKA_TO_RELATION.items()}
KARAKA_RELATIONS = frozenset(KARAKA_TO_RELATION.values())
SUBJECT_RELATIONS = frozenset({"HAS_KARTĀ", "HAS_KARMA"})
"""The kāraka relations whose span is a bare noun phrase; the others' spans may lead with a preposition."""
KARAKAS = tuple(KARAKA_TO_RELATION)

_ASCII = str.maketrans({"Ā": "A"})
_BY_ASCII = {name.translate(_ASCII): name for name in RELATIONS}
# Legacy spellings whose direction ran Entity -> Kriyā; normalised by flipping the edge.
_LEGACY_REVERSED = {"IS_KARTA_OF": "HAS_KARTĀ"}

REQUIRED: dict[str, dict[str, type]] = {
    "Document": {"doc_id": str, "seq": int, "line_number": int, "text": str},
    "Kriya": {"verb": str, "doc_id": str, "seq": int, "line_number": int},
    "Entity": {"canonical_name": str},
}


class SchemaError(ValueError):
    """A write that breaks the schema; ``field`` names what was wrong."""

    def __init__(self, message: str, *, field: str):
        super().__init__(message)
        self.field = field


def karaka_relation(karaka: str) -> str:
    """Map a kāraka name (KARTA, karma, adhikarana_spatial…) to its relation."""
    key = karaka.strip().upper().replace("Ā", "A").replace("-", "_")
    if key == "ADHIKARANA":
        key = "ADHIKARANA_SPATIAL"
    if key not in KARAKA_TO_RELATION:
        raise SchemaError(f"unknown kāraka {karaka!r}", field="karaka")
    return KARAKA_TO_RELATION[key]


def normalize_edge(source: str, target: str, relation: str) -> tuple[str, str, str]:
    """Return (source, target, relation) with the relation's canonical spelling.

    ASCII spellings (HAS_KARTA) map to the diacritic form; the legacy
    IS_KARTĀ_OF (Entity → Kriyā) becomes HAS_KARTĀ with the edge reversed.
    """
    key = relation.strip().upper().translate(_ASCII)
    if key in _LEGACY_REVERSED:
        return target, source, _LEGACY_REVERSED[key]
    if key in _BY_ASCII:
        return source, target, _BY_ASCII[key]
    raise SchemaError(f"unknown relation {relation!r}", field="relation")


def validate_node(node_id: str, attrs: dict[str, Any]) -> None:
    """Raise SchemaError unless the node has a valid type and its required attributes."""
    if not isinstance(node_id, str) or not node_id.strip():
        raise SchemaError(f"node id must be a non-empty string, got {node_id!r}", field="id")
    kind = attrs.get("type")
    if kind not in NODE_TYPES:
        raise SchemaError(f"node {node_id!r}: invalid type {kind!r}", field="type")
    for name, expected in REQUIRED[kind].items():
        value = attrs.get(name)
        if not isinstance(value, expected) or isinstance(value, bool):
            raise SchemaError(
                f"{kind} node {node_id!r}: attribute {name!r} must be {expected.__name__}, "
                f"got {value!r}",
                field=name,
            )
        if isinstance(value, str) and not value.strip():
            raise SchemaError(f"{kind} node {node_id!r}: {name!r} is empty", field=name)
        if isinstance(value, int) and expected is int and value < 1:
            raise SchemaError(f"{kind} node {node_id!r}: {name!r} must be >= 1", field=name)


def validate_edge(source_type: str | None, target_type: str | None, relation: str) -> None:
    """Raise SchemaError unless the relation joins these endpoint types."""
    if relation not in RELATIONS:
        raise SchemaError(f"unknown relation {relation!r}", field="relation")
    want_source, want_target = RELATIONS[relation]
    if source_type != want_source:
        raise SchemaError(
            f"{relation} must start at a {want_source}, not {source_type}", field="source"
        )
    if target_type != want_target:
        raise SchemaError(
            f"{relation} must end at a {want_target}, not {target_type}", field="target"
        )
