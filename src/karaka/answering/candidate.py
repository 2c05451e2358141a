"""One candidate answer, whatever found it: the graph's action, a typed span of a line, a fact, the model."""

from __future__ import annotations

from dataclasses import dataclass, field

from karaka.answering.evidence import Evidence

GRAPH, LINES, FACTS, MODEL = "graph", "lines", "facts", "model"
"""Where a candidate comes from: a role of a Kriyā, a typed span of a ranked line, a fact read hop by hop, the model."""


@dataclass
class Candidate:
    """A span that may answer the question, the line it was read from, and what that line says for it."""

    text: str
    kind: str
    node: str
    """The Document node of its line (the citation)."""
    source: str
    evidence: Evidence
    score: float = 0.0
    rank: int = 0
    """Its line's place among the lines read (0: the best)."""
    agree: int = 1
    """How many lines gave the same span."""
    refers_to: str = ""
    """What a pronoun stands for ("she" → "Mara"), or ""."""
    also: list[str] = field(default_factory=list)
    """Other lines that support it (Document nodes): the antecedent's line, the line it continues."""

    @property
    def proved(self) -> bool:
        return self.evidence.proved

    @property
    def shown(self) -> str:
        """How it reads: "she (Mara)" for a pronoun with its antecedent."""
        return f"{self.text} ({self.refers_to})" if self.refers_to and self.refers_to.lower() != self.text.lower() \
            else self.text
