"""The stated confidence: the measured chance that a result is right, from its evidence.

A logistic model over two general features of the chosen candidate: proved or not, and how far
ahead of the next candidate it is. Its weights are fitted by ``benchmarks/qa.py --folds --fit`` on the dev sets and kept in
``calibration.json`` beside this file, with the reliability measured out of fold when they were
fitted (fit on two of the three set families, measured on the third). The chance is that of the
answer shown, GROUNDED or UNCERTAIN; a result with no answer states how often a refusal was
right in the same fit.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path
from typing import Any

from karaka.answering.candidate import FACTS, GRAPH, MODEL, Candidate

FEATURES = ("bias", "proved", "margin")
"""What the chance is read from: whether the line proves the answer, and how far ahead of the next candidate it is.

Kind-free evidence, so that it carries from one kind of document to another. Out of fold, features of
where the answer came from made it worse on the set left out; so did the share of the question's words
the line holds (``cover``) and how near they stand to the answer (``near``), both still recorded: they
follow how long and how headed a family's lines are (one-sentence lines, manual lines under headings),
and their weights learnt on two families misled on the third (docs' ECE 0.12-0.15 with them, 0.07
without). ``agree`` (how many lines give the answer) added nothing.
"""
_FILE = Path(__file__).with_name("calibration.json")


def features(best: Candidate | None, runner_up: Candidate | None) -> dict[str, float]:
    """The features of a result whose chosen candidate is ``best`` (None: no answer)."""
    if best is None:
        return {}
    margin = best.score - (runner_up.score if runner_up is not None else 0.0)
    return {"bias": 1.0, "proved": float(best.proved), "cover": best.evidence.cover, "near": best.evidence.near,
            "margin": max(0.0, min(margin, 1.0)), "agree": float(min(best.agree - 1, 3)) / 3,
            "source": {GRAPH: 1.0, FACTS: 2.0, MODEL: 3.0}.get(best.source, 0.0)}


@functools.lru_cache(maxsize=1)
def fitted() -> dict[str, Any]:
    """The fitted weights (and how they were measured)."""
    return json.loads(_FILE.read_text(encoding="utf-8"))


def chance(values: dict[str, float]) -> float:
    """The chance that an answer with these features is right; for no answer, that there was nothing to find."""
    table = fitted()
    if not values:
        return float(table["no_answer_right"])
    z = sum(float(w) * values.get(name, 0.0) for name, w in zip(table["features"], table["weights"], strict=True))
    return round(1.0 / (1.0 + math.exp(-z)), 3)


def fit(rows: list[tuple[dict[str, float], bool]], steps: int = 50, ridge: float = 1.0) -> list[float]:
    """Logistic regression (Newton's method, a small ridge) of rightness on the features: the weights."""
    import numpy as np

    x = np.array([[r.get(name, 0.0) for name in FEATURES] for r, _ in rows], dtype=float)
    y = np.array([float(ok) for _, ok in rows])
    w = np.zeros(len(FEATURES))
    penalty = ridge * np.eye(len(FEATURES))
    penalty[0, 0] = 0.0  # the bias is not shrunk
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        gradient = x.T @ (p - y) + penalty @ w
        hessian = x.T @ (x * (p * (1 - p))[:, None]) + penalty + 1e-9 * np.eye(len(FEATURES))
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return [round(float(v), 4) for v in w]


def predict(weights: list[float], values: dict[str, float]) -> float:
    """``chance`` with the given weights (for fitting and measuring out of fold)."""
    z = sum(w * values.get(name, 0.0) for name, w in zip(FEATURES, weights, strict=True))
    return 1.0 / (1.0 + math.exp(-z))
