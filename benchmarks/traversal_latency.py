"""Traversal latency (no LLM) on a synthetic graph of 100,000 Kriyās: p50 and p95 per plan.

    python benchmarks/traversal_latency.py [--kriyas 100000] [--queries 300]

The graph: 5,000 entities (every 50th has an IS_SAME_AS alias), 200 verbs, each Kriyā with a
KARTA, a KARMA, half with a LOCATED_IN, one Document line each, and a CAUSES edge to the next
Kriyā for every 10th. Plans are drawn from real Kriyās so every one finds something:
- 1-hop: verb + KARTA, extract KARMA;
- 3-hop: three chained steps (step 2's KARTA is step 1's answer, step 3's KARMA is step 2's
  answer), following IS_SAME_AS;
- causal: 1-hop plus CAUSES expansion (≤ 5 hops).
Timed: `traverse` + answer names + the context lines, as the query graph runs them.
"""

import argparse
import random
import statistics
import tempfile
import time

from karaka.kg.traverse import display, traverse
from karaka.models import load_embeddings
from karaka.store.embedded.workspace import Workspace
from karaka.store.resolver import EntityResolver


def build(ws: Workspace, kriyas: int, entities: int, verbs: int, rng: random.Random) -> list[tuple[str, str, str]]:
    names = [f"Person{i}" for i in range(entities)]
    for name in names:
        ws.graph.add_entity(name, name)
        ws.resolver.resolve(name)
    for i in range(0, entities, 50):
        alias = f"Alias{i}"
        ws.graph.add_entity(alias, alias)
        ws.resolver.resolve(alias)
        ws.graph.add_edge(alias, names[i], "IS_SAME_AS")
    verb_names = [f"verb{i}" for i in range(verbs)]
    facts, prev = [], ""
    for k in range(kriyas):
        doc, line = f"doc{k // 1000}", k % 1000 + 1
        ws.graph.add_document(doc, line, f"line {k}", line=line)
        verb = verb_names[rng.randrange(verbs)]
        kid = ws.graph.add_kriya(f"{doc}_L{line}", 1, verb)
        karta, karma = names[rng.randrange(entities)], names[rng.randrange(entities)]
        ws.graph.add_edge(kid, karta, "HAS_KARTĀ")
        ws.graph.add_edge(kid, karma, "HAS_KARMA")
        if k % 2:
            ws.graph.add_edge(kid, names[rng.randrange(entities)], "LOCATED_IN")
        ws.graph.add_edge(kid, f"{doc}_L{line}", "CITED_IN")
        if k % 10 == 0 and k:
            ws.graph.add_edge(prev, kid, "CAUSES")
        prev = kid
        facts.append((verb, karta, karma))
    return facts


def plans(facts: list[tuple[str, str, str]], rng: random.Random, n: int) -> dict[str, list[dict]]:
    by_karta: dict[str, list[tuple[str, str, str]]] = {}
    for fact in facts:
        by_karta.setdefault(fact[1], []).append(fact)
    out: dict[str, list[dict]] = {"1-hop": [], "3-hop": [], "causal": []}
    while min(len(v) for v in out.values()) < n:
        verb, karta, karma = rng.choice(facts)
        step1 = {"verb": verb, "karakas": {"KARTA": karta}, "extract": "KARMA", "follow_same_as": True}
        out["1-hop"].append({"steps": [step1]})
        out["causal"].append({"steps": [{**step1, "follow_causes": True}]})
        nxt = by_karta.get(karma)
        if nxt:
            verb2 = rng.choice(nxt)[0]
            out["3-hop"].append({"steps": [
                step1,
                {"verb": verb2, "karakas": {"KARTA": "step1"}, "extract": "KARMA", "follow_same_as": True},
                {"verb": None, "karakas": {"KARMA": "step2"}, "extract": "KARTA", "follow_same_as": True},
            ]})
    return {k: v[:n] for k, v in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kriyas", type=int, default=100_000)
    parser.add_argument("--entities", type=int, default=5_000)
    parser.add_argument("--verbs", type=int, default=200)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    rng = random.Random(7)
    ws = Workspace(tempfile.mkdtemp(), load_embeddings("wordllama", announce=False))
    # Synthetic names ("Person12", "Person13") are near-identical to an embedding model and would
    # merge; the benchmark measures traversal, so the resolver matches names exactly.
    ws.resolver = EntityResolver(None)
    start = time.perf_counter()
    facts = build(ws, args.kriyas, args.entities, args.verbs, rng)
    stats = ws.graph.stats()
    print(f"graph: {args.kriyas} kriyas, {stats['nodes']} nodes, {stats['edges']} edges "
          f"(built in {time.perf_counter() - start:.1f} s)")
    for kind, batch in plans(facts, rng, args.queries).items():
        traverse(ws, batch[0])  # warm the verb-lemma cache
        times, found = [], 0
        for plan in batch:
            t = time.perf_counter()
            result = traverse(ws, plan)
            [display(ws, a) for a in result.answers]
            context = [(n["doc_id"], n["line_number"], n["text"]) for d in result.documents[:5]
                       if (n := ws.graph.node(d)) is not None]
            times.append((time.perf_counter() - t) * 1000)
            found += bool(context)
        times.sort()
        p95 = times[int(0.95 * (len(times) - 1))]
        print(f"{kind:7s} n={len(times)} p50={statistics.median(times):.2f} ms p95={p95:.2f} ms "
              f"max={times[-1]:.2f} ms found={found}/{len(times)}")
    ws.close()


if __name__ == "__main__":
    main()
