"""Does the graph keep what the extractor found? QA-SRL dev sentences, one per line, through ingestion.

    python benchmarks/export_fidelity.py [--domain wikinews|wikipedia|both] [--limit N]

Each domain's dev sentences are written one per line (no blank lines), ingested with
``--extractor parser``, exported with ``karaka export --format json``, and scored from the export
alone: a Kriyā matches a gold predicate by its line and word position, its arguments are the
surface spans its kāraka edges carry. The same sentences are scored by ``karaka eval extraction``;
the difference is what ingestion loses (the issue's bound: 2 F1 points).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from karaka.evaluation import evaluate, load_gold, score
from karaka.store.schema import RELATION_TO_KARAKA

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "qasrl-gs"


def token_at(tokens: list[str], char: int | None) -> int | None:
    """The dataset's token index at a character offset of the space-joined sentence."""
    if char is None:
        return None
    offset = 0
    for i, token in enumerate(tokens):
        if offset <= char < offset + len(token) + 1:
            return i
        offset += len(token) + 1
    return None


def from_export(export: dict[str, Any], line_of: dict[str, int],
                tokens: dict[str, list[str]]) -> dict[str, list[dict[str, Any]]]:
    """Predicted kriyas per sentence id, read from an exported graph alone."""
    nodes = {n["id"]: n for n in export["nodes"]}
    by_line = {v: k for k, v in line_of.items()}
    predictions: dict[str, list[dict[str, Any]]] = defaultdict(list)
    roles: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for edge in export["edges"]:
        role = RELATION_TO_KARAKA.get(edge["key"])
        if role:
            roles[edge["source"]][role].append(edge.get("span") or nodes[edge["target"]]["canonical_name"])
    for node in nodes.values():
        if node.get("type") != "Kriya" or node["line_number"] not in by_line:
            continue
        sid = by_line[node["line_number"]]
        predictions[sid].append({"verb": node["verb"], "token": token_at(tokens[sid], node.get("char")),
                                 "karakas": dict(roles[node["id"]])})
    return predictions


def run(domain: str, limit: int | None) -> dict[str, Any]:
    gold, full = DATA / f"{domain}.dev.gold.csv", DATA / f"{domain}.dev.full.csv"
    items = load_gold(gold, full, limit)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "docs").mkdir()
        (root / "docs" / "sentences.txt").write_text("\n".join(" ".join(i["tokens"]) for i in items) + "\n")
        karaka = [sys.executable, "-m", "karaka.app.cli"]
        subprocess.run([*karaka, "ingest", "docs", "--workspace", "ws", "--extractor", "parser", "--json"],
                       cwd=root, check=True, capture_output=True)
        subprocess.run([*karaka, "export", "--workspace", "ws", "--format", "json", "--output", "graph.json"],
                       cwd=root, check=True, capture_output=True)
        export = json.loads((root / "graph.json").read_text())
    line_of = {item["id"]: n for n, item in enumerate(items, 1)}
    kept = score(items, from_export(export, line_of, {i["id"]: i["tokens"] for i in items}))["micro"]
    direct = evaluate(gold, full, limit=limit)["micro"]
    return {"domain": domain, "sentences": len(items), "eval_extraction_f1": direct["f1"],
            "from_export_f1": kept["f1"], "lost_points": round(100 * (direct["f1"] - kept["f1"]), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--domain", choices=["wikinews", "wikipedia", "both"], default="both")
    parser.add_argument("--limit", type=int)
    args = parser.parse_args()
    for domain in ("wikinews", "wikipedia"):
        if args.domain in (domain, "both"):
            print(json.dumps(run(domain, args.limit)))


if __name__ == "__main__":
    main()
