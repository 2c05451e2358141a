"""Karaka against LightRAG on the same generated corpus, both as whole processes.

    python benchmarks/peer_lightrag.py [--lines 2000] [--runs 3] [--venv DIR]

Both get an instant mock LLM and the same WordLlama embeddings; LightRAG a whitespace tokeniser.
Karaka runs ``karaka ingest --llm simulated`` with its default settings (and once more with
``--extractor parser --llm none``); LightRAG inserts the same documents. LightRAG is a
benchmark-only dependency: this script makes its own venv (default
``~/.cache/karaka/lightrag-venv``, ``lightrag-hku==1.5.7``) and never touches Karaka's.
Prints ms/line for each run, the medians and the ratio Karaka ÷ LightRAG.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from ingest_overhead import corpus

LIGHTRAG = "lightrag-hku==1.5.7"
WORDLLAMA = "wordllama==0.4.0.post1"

RUNNER = textwrap.dedent('''
    import asyncio, re, sys
    from pathlib import Path
    import numpy as np
    import wordllama
    from wordllama import WordLlama
    from lightrag import LightRAG
    from lightrag.kg.shared_storage import initialize_pipeline_status
    from lightrag.utils import EmbeddingFunc, Tokenizer

    docs, work = Path(sys.argv[1]), sys.argv[2]
    wl = WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
    NAME = re.compile(r"\\b[A-Z][a-z]+\\b")

    class Whitespace:
        def __init__(self):
            self.vocab, self.words = {}, []
        def encode(self, text):
            out = []
            for w in text.split(" "):
                if w not in self.vocab:
                    self.vocab[w] = len(self.words)
                    self.words.append(w)
                out.append(self.vocab[w])
            return out
        def decode(self, ids):
            return " ".join(self.words[i] for i in ids)

    async def llm(prompt, system_prompt=None, history_messages=(), keyword_extraction=False, **kwargs):
        """Instant: one entity per capitalised word of the chunk, one relation between the first two."""
        text = prompt.rsplit("---Input Text---", 1)[-1] if "---Input Text---" in prompt else prompt[-2000:]
        names = list(dict.fromkeys(NAME.findall(text)))[:6]
        rows = [f"entity<|#|>{n}<|#|>person<|#|>{n} is named in the text." for n in names]
        if len(names) > 1:
            rows.append(f"relation<|#|>{names[0]}<|#|>{names[1]}<|#|>gives<|#|>{names[0]} gives to {names[1]}.")
        return "\\n".join(rows + ["<|COMPLETE|>"])

    async def embed(texts):
        return np.asarray(wl.embed(list(texts)), dtype=np.float32)

    async def main():
        rag = LightRAG(working_dir=work, llm_model_func=llm, tokenizer=Tokenizer("whitespace", Whitespace()),
                       embedding_func=EmbeddingFunc(embedding_dim=wl.embed(["x"]).shape[1], max_token_size=8192,
                                                    func=embed),
                       enable_llm_cache=False)
        await rag.initialize_storages()
        await initialize_pipeline_status()
        files = sorted(docs.glob("*.txt"))
        await rag.ainsert([f.read_text() for f in files], file_paths=[str(f) for f in files])
        await rag.finalize_storages()

    asyncio.run(main())
''')


def ensure_venv(venv: Path) -> Path:
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", LIGHTRAG, WORDLLAMA], check=True)
    return python


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:3])}… failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--venv", type=Path, default=Path.home() / ".cache" / "karaka" / "lightrag-venv")
    args = parser.parse_args()
    lightrag_python = ensure_venv(args.venv)
    karaka = str(Path(sys.executable).parent / "karaka")
    root = Path(tempfile.mkdtemp(prefix="karaka-peer-"))
    corpus(root / "docs", args.lines)
    runner = root / "lightrag_runner.py"
    runner.write_text(RUNNER)
    figures: dict[str, list[float]] = {"karaka simulated": [], "karaka parser": [], "lightrag": []}
    for run in range(args.runs):
        figures["karaka simulated"].append(timed([karaka, "ingest", str(root / "docs"), "--workspace",
                                                  str(root / f"ks{run}"), "--llm", "simulated"]))
        figures["karaka parser"].append(timed([karaka, "ingest", str(root / "docs"), "--workspace",
                                               str(root / f"kp{run}"), "--llm", "none", "--extractor", "parser"]))
        figures["lightrag"].append(timed([str(lightrag_python), str(runner), str(root / "docs"), str(root / f"lr{run}")]))
        print(f"run {run + 1}: " + ", ".join(f"{k} {1000 * v[-1] / args.lines:.2f} ms/line" for k, v in figures.items()),
              flush=True)
    medians = {k: 1000 * statistics.median(v) / args.lines for k, v in figures.items()}
    print(f"\nmedians of {args.runs} runs, {args.lines} lines, whole processes:")
    for name, value in medians.items():
        print(f"  {name:18s} {value:7.2f} ms/line")
    print(f"  ratio karaka simulated ÷ lightrag = {medians['karaka simulated'] / medians['lightrag']:.2f}")


if __name__ == "__main__":
    main()
