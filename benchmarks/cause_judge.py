"""The CAUSES judge on labelled pairs: how often it keeps a causal pair and drops one that is not.

``benchmarks/data/cause_pairs.jsonl`` holds pairs of actions the cue rules put to the judge
(two verbs of one sentence with a cue between them, as ``cue`` orders them), each read by eye:
``causal`` is true where the sentence says the first caused the second or was done for it. They
come from QA-SRL dev sentences of the post-processing review samples (MIT licence) and
the docs dev corpus; the cue is the word that put the pair up.

The sentences are ingested with the parser into a fresh workspace (no LLM); each pair is then
put to ``one_way`` (yes one way round, no the other), exactly as ingestion asks it. Printed:
the judge's precision and recall against the labels, the same for "every pair the cues put up"
(no judge), and both by cue.

    python benchmarks/cause_judge.py --llm llamacpp:QWEN.gguf:threads=2
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

PAIRS = Path(__file__).resolve().parent / "data" / "cause_pairs.jsonl"


def scores(rows: list[tuple[bool, bool]]) -> dict[str, Any]:
    """Precision and recall of (said yes, gold) rows."""
    yes = sum(1 for said, _ in rows if said)
    right = sum(1 for said, gold in rows if said and gold)
    causal = sum(1 for _, gold in rows if gold)
    return {"pairs": len(rows), "yes": yes, "right": right,
            "precision": round(right / yes, 3) if yes else None, "recall": round(right / causal, 3) if causal else None}


def asked(services: Any, doc_id: str, cause: str, effect: str) -> tuple[str, str] | None:
    """The Kriyās (cause, effect) of two consecutive actions with these verbs that a cue puts up, as ``cue`` orders them."""
    from karaka.kg.enrich.causes import cue
    from karaka.kg.enrich.decisions import text_of

    graph = services.workspace.graph
    order = graph.kriyas_of(doc_id)
    for first, second in zip(order, order[1:], strict=False):
        a, b = graph.node(first), graph.node(second)
        way = cue(text_of(services, first), a, b)
        pair = (first, second) if way > 0 else (second, first)
        if way and (graph.node(pair[0])["verb"], graph.node(pair[1])["verb"]) == (cause, effect):
            return pair
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--llm", required=True, help="the judge's LLM spec, e.g. llamacpp:PATH.gguf:threads=2")
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    parser.add_argument("--limit", type=int, default=None, help="only the first N pairs")
    args = parser.parse_args()

    from karaka.app.runner import run_ingest
    from karaka.config import Context
    from karaka.kg.enrich.causes import one_way
    from karaka.services import get_services

    pairs = [json.loads(line) for line in args.pairs.read_text().splitlines() if line.strip()][: args.limit]
    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "docs"
        docs.mkdir()
        for i, pair in enumerate(pairs):
            (docs / f"p{i:03d}.txt").write_text(pair["text"] + "\n", encoding="utf-8")
        workspace = Path(tmp) / "ws"
        run_ingest(Context(workspace=str(workspace), llm="none", extractor="parser", causality=False), docs)
        services = get_services(Context(workspace=str(workspace), llm=args.llm, extractor="parser"))
        judged: list[tuple[bool, bool]] = []
        by_cue: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
        for i, pair in enumerate(pairs):
            found = asked(services, f"p{i:03d}", pair["cause"], pair["effect"])
            if found is None:
                print(f"p{i:03d}: {pair['cause']} -> {pair['effect']} is not put up by the cues", file=sys.stderr)
                continue
            said = one_way(services, f"p{i:03d}", "cause-judge", *found)
            judged.append((said, pair["causal"]))
            by_cue[pair["cue"]].append((said, pair["causal"]))
            print(f"p{i:03d} {pair['cue']:>11} {pair['cause']} -> {pair['effect']}: judge "
                  f"{'yes' if said else 'no '} gold {'yes' if pair['causal'] else 'no'}", flush=True)
    report = {
        "llm": args.llm,
        "judge": scores(judged),
        "every_pair_the_cues_put_up": scores([(True, gold) for _, gold in judged]),
        "by_cue": {cue: {"judge": scores(rows), "cues_alone": scores([(True, g) for _, g in rows])}
                   for cue, rows in sorted(by_cue.items())},
    }
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
