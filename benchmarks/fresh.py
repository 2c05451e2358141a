"""Questions written over documents new to the project, scored as the blind set scores (totals and rows).

    python benchmarks/fresh.py [--llm SPEC] [--workspace WS]

With ``--workspace`` the documents are kept in ``WS.source/``, so a rerun finds them unchanged.

The corpus comes from Debian's packages on this machine (no download): curl's manual page
(rendered by groff), zlib's usage example (zlib1g-dev), Git 2.28's release notes (git) and dpkg's
trigger specification (dpkg). The questions (``data/fresh/questions.json``) were written by
reading those documents, 22 answerable and 4 not; they found defects the development sets did
not, so they are development questions now, not held out. "Right" is a GROUNDED answer that
holds the gold.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

HERE = Path(__file__).parent
SOURCES = {
    "dpkg-triggers.txt": "/usr/share/doc/dpkg/spec/triggers.txt",
    "zlib-how.html": "/usr/share/doc/zlib1g-dev/examples/zlib_how.html",
    "git-2.28.0-relnotes.txt": "/usr/share/doc/git/RelNotes/2.28.0.txt",
}
MAN_PAGE = "/usr/share/man/man1/curl.1.gz"


def norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w.%+-]+", " ", unicodedata.normalize("NFKC", text or "").lower()).split())


def has(text: str, golds: list[str]) -> bool:
    padded = f" {norm(text)} "
    return any(norm(g) and f" {norm(g)} " in padded for g in golds)


def corpus(folder: Path) -> Path:
    """The four documents, copied or rendered into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in SOURCES.items():
        if not Path(source).exists():
            sys.exit(f"{source} is missing: install the Debian package that ships it")
        shutil.copy(source, folder / name)
    if not shutil.which("groff"):
        sys.exit("groff is missing: apt-get install groff")
    page = gzip.decompress(Path(MAN_PAGE).read_bytes())
    rendered = subprocess.run(["groff", "-man", "-Tutf8"], input=page, capture_output=True, check=True).stdout
    text = re.sub(r".\x08", "", rendered.decode("utf-8", errors="replace"))  # what col -b does: no overstrikes
    (folder / "curl.1.txt").write_text(re.sub(r"\x1b\[[0-9;]*m", "", text), encoding="utf-8")
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--llm", default="none")
    parser.add_argument("--workspace", default="")
    args = parser.parse_args()
    from karaka.app.runner import run_ingest, run_query
    from karaka.config import resolve_context

    with tempfile.TemporaryDirectory() as tmp:
        workspace = args.workspace or str(Path(tmp) / "ws")
        docs = corpus(Path(f"{args.workspace}.source") if args.workspace else Path(tmp) / "docs")  # one path for a
        # workspace's reruns: a new temporary path made each document a second one beside the first, and answers drifted
        run_ingest(resolve_context({"workspace": workspace, "llm": "none", "extractor": "parser"}), docs)
        ctx = resolve_context({"workspace": workspace, "llm": args.llm})
        questions = json.loads((HERE / "data" / "fresh" / "questions.json").read_text(encoding="utf-8"))
        right = grounded = wrong = refused = 0
        for q in questions:
            result = run_query(ctx, q["question"])
            answer = re.sub(r"\[[^\]]*\]", " ", result["answer"])
            ok = result["status"] == "GROUNDED" and has(answer, q["gold"])
            grounded += result["status"] == "GROUNDED"
            wrong += result["status"] == "GROUNDED" and not ok
            right += ok and q["answerable"]
            refused += not q["answerable"] and result["status"] != "GROUNDED"
            mark = ("RIGHT" if ok else "wrong") if q["answerable"] else ("refused" if result["status"] != "GROUNDED"
                                                                         else "WRONG")
            print(f"{q['id']:4} {mark:7} {result['status']:9} {q['question'][:70]!r} -> "
                  f"{'; '.join(result['answers'])[:60]!r}")
        answerable = sum(q["answerable"] for q in questions)
        print(f"fresh ({args.llm}): right {right}/{answerable}, refused {refused}/{len(questions) - answerable}, "
              f"GROUNDED wrong {wrong}/{grounded}")


if __name__ == "__main__":
    main()
