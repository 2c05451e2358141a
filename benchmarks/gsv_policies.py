"""What the LLM adds to the parser: re-score a ``gsv_quality.py`` run under other ways of combining them.

    python benchmarks/gsv_policies.py OUT.gsv.jsonl [--gold-dir ../shared/data/qasrl-gs] [--split wikinews]

Reads the per-sentence JSONL that ``gsv_quality.py --json OUT`` writes next to its report and
scores, on the same sentences: the parser alone; GSV's output as it was written; and the parser's
draft with only the roles GSV's output adds (per verb, never replacing a parser span) or with
GSV's spans replacing the parser's. If adding the LLM's roles does not raise recall, the model
contributes nothing the parser lacks, and no acceptance rule can make GSV beat the parser with it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from karaka.evaluation import _locate, _predict_parser, load_gold, score


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("jsonl")
    parser.add_argument("--gold-dir", default=str(Path(__file__).resolve().parents[2] / "shared/data/qasrl-gs"))
    parser.add_argument("--split", default="wikinews")
    args = parser.parse_args()
    rows = {json.loads(line)["id"]: json.loads(line) for line in open(args.jsonl, encoding="utf-8")}
    gold = Path(args.gold_dir)
    items = [it for it in load_gold(gold / f"{args.split}.dev.gold.csv", gold / f"{args.split}.dev.full.csv")
             if it["id"] in rows]
    tokens = {it["id"]: it["tokens"] for it in items}

    def located(sid: str, kriyas: list[dict[str, Any]]) -> list[dict[str, Any]]:
        taken: set[int] = set()
        out = []
        for kriya in kriyas:
            kriya = dict(kriya)
            if kriya.get("token") is None:
                kriya["token"] = _locate(str(kriya.get("verb", "")), tokens[sid], taken)
            if kriya["token"] is not None:
                taken.add(kriya["token"])
            out.append(kriya)
        return out

    drafts = {sid: _predict_parser(tokens[sid]) for sid in tokens}
    written = {sid: located(sid, rows[sid]["predicted"]) for sid in tokens}

    def combined(sid: str, overwrite: bool) -> list[dict[str, Any]]:
        out = [dict(k, karakas=dict(k["karakas"])) for k in drafts[sid]]
        for kriya in written[sid]:
            same = [k for k in out if k["verb"] == kriya["verb"]]
            if not same:
                out.append(kriya)
                continue
            for role, span in kriya["karakas"].items():
                if role not in same[0]["karakas"] or overwrite:
                    same[0]["karakas"][role] = span
        return out

    policies = {
        "parser alone": drafts,
        "GSV as written": written,
        "parser + roles GSV adds": {sid: combined(sid, False) for sid in tokens},
        "parser, GSV spans win": {sid: combined(sid, True) for sid in tokens},
    }
    print(f"{len(items)} sentences of {args.jsonl}")
    for name, predictions in policies.items():
        micro = score(items, predictions)["micro"]
        print(f"{name:26s} F1 {micro['f1']:.3f}  P {micro['precision']:.3f}  R {micro['recall']:.3f}")


if __name__ == "__main__":
    main()
