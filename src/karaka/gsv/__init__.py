"""GSV-Retry's tasks, one file a task with its schema, checks and merge; ``run.run_loop`` runs the loop.

``get_task(name)`` gives the ``GSVTask`` the loop's nodes (``nodes/gsv.py``) and graph
(``graphs/gsv.py``) run: ``kriya`` (a window's actions), ``query`` (a question's plan) or
``metaphor`` (what an epithet names).
"""

from __future__ import annotations

from karaka.gsv.kriya import KriyaExtraction, kriya_checks, kriya_confirm, kriya_merge, kriya_output
from karaka.gsv.metaphor import MetaphorLink
from karaka.gsv.query import QueryPlan, plan_output, query_checks
from karaka.gsv.task import GSVTask

TASKS: dict[str, GSVTask] = {
    "kriya": GSVTask(
        "kriya", "kriya_extraction_prompt", "lines", "kriya_scoring_prompt",
        "kriya_verification_prompt", KriyaExtraction, kriya_checks, kriya_confirm, "kriya_correction_prompt",
        kriya_output, kriya_merge,
    ),
    "query": GSVTask(
        "query", "query_decomposition_prompt", "question", "query_scoring_prompt",
        "query_verification_prompt", QueryPlan, query_checks, output=plan_output,
    ),
    "metaphor": GSVTask(
        "metaphor", "metaphor_extraction_prompt", "source", "metaphor_scoring_prompt",
        "metaphor_verification_prompt", MetaphorLink, None,
    ),
}


def get_task(name: str) -> GSVTask:
    """Look up a task by name."""
    if name not in TASKS:
        raise ValueError(f"unknown GSV task {name!r}; known: {sorted(TASKS)}")
    return TASKS[name]
