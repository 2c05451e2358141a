"""Questions written over documents new to the project, scored as the blind set scores (totals and rows).

    python benchmarks/fresh.py [--set fresh|shelf|shelf2|…|shelf26] [--llm SPEC] [--workspace WS]

With ``--workspace`` the documents are kept in ``WS.source/``, so a rerun finds them unchanged.

The corpus comes from Debian's packages on this machine (no download): curl's manual page
(rendered by groff), zlib's usage example (zlib1g-dev), Git 2.28's release notes (git) and dpkg's
trigger specification (dpkg). The questions (``data/fresh/questions.json``) were written by
reading those documents, 22 answerable and 4 not; they found defects the development sets did
not, so they are development questions now, not held out. "Right" is a GROUNDED answer that
holds the gold.

``--set shelf`` (fifteenth session) is a second such set of the kinds a user's shelf holds: a
license (MPL 2.0), a Markdown design note (systemd's UIDS-GIDS.md), an HTML manual (base-passwd's
users and groups), a PDF manual (fontconfig's user guide) and a manual page in German whose
sections are partly untranslated (chage), 43 questions answerable and 4 not
(``data/shelf/questions.json``), written from those documents before any was run.
``--set shelf2`` is a third, written the same day before any of the changes built on ``shelf``
was measured on it (a license, a Markdown list of variables, an HTML policy, a PDF manual and a
German manual page: 25 answerable, 3 not): it says whether those changes carry. ``--set shelf3``
was written at the session's end, after every change, and measured once on the session's first
and last code (a license, a Markdown README, an HTML manual page and a German manual page: 20
answerable, 2 not). ``--set shelf4`` (sixteenth session) was written the same way before anything
ran on it (a license, a Markdown README, an HTML manual page, a PDF manual and a German manual
page: 27 answerable, 3 not), and ``--set shelf5`` after shelf4's fixes, with a scan among its
documents (25 answerable, 3 not), ``--set shelf6`` after shelf5's (25 and 3), ``--set shelf7`` last (18 and 2).
``--set shelf8`` (seventeenth session; an HTML reference, a Markdown spec, a German manual page and a scan: 25
and 2) was written after the session's first changes and run on its first code before any change it led to.
``--set shelf10`` (eighteenth session: a licence, an HTML manual, a German manual page and a scan) and ``--set
shelf11`` (a Markdown policy and glossary, an HTML manual, a German manual page and a scan), 32 answerable and 3
not each, were written the same way, shelf11 after shelf10's first fixes; ``--set shelf12`` (a Markdown
governance text, an HTML manual, a German manual page and a scan: 29 and 3) after all of that session's changes.
``--set shelf13`` (nineteenth session: Valgrind's whole manual as a 397-page PDF, a Markdown guide, a German manual
page and a scan: 28 and 3) was written before that session changed anything, ``--set shelf14`` (an HTML guide, a
Markdown policy, a German manual page and a scan: 20 and 3) after its changes, before they ran on it.
``--set shelf15`` (twentieth session: a licence, an HTML reference, a Markdown build guide, a German manual page
and a scan: 36 and 3) was written before that session changed anything, ``--set shelf16`` (the same kinds: 32 and 3)
after its first changes, before they ran on it, and ``--set shelf17`` (27 and 3) after all of them, measured once.
``--set shelf18`` (twenty-second session: a licence, Valgrind's FAQ as HTML, a Markdown page of pip's, a German manual
page and a scan: 43 and 3) was written before that session changed anything, ``--set shelf19`` (Valgrind's quick
start as HTML, pip's authentication.md, gpasswd's German manual page and a scan of groff's README: 30 and 3) after its
first five changes, before they ran on it. ``--set shelf20`` (twenty-third session: Ninja's manual and json-c's README
printed to PDF by headless Chromium, postgresql-common's README.md, passwd's German manual page and a scan of
coreutils' README: 66 and 3) was written before that session changed anything, ``--set shelf21`` (the X Transport
Interface printed to PDF, pip's configuration.md, newgrp's German manual page and a scan of PyYAML's README: 37 and 3)
after all of its changes, before they ran on it. ``--set shelf22`` (twenty-fourth session: Node.js's Corepack page printed to
PDF, pip's vcs-support.md and https-certificates.md, pmap's German manual page and a scan of D-Bus's README: 39 and 3)
was written before that session changed anything, ``--set shelf23`` (Node.js's debugger page printed to PDF, Valgrind's
README_PACKAGERS as HTML, pip's repeatable-installs.md, sg's German manual page and a scan of GnuPG's README: 39 and 3)
after all of its changes, run once on the session's first and last code. ``--set shelf24`` (twenty-fifth session:
Node.js's tty page printed to PDF, Valgrind's README_DEVELOPERS as HTML, skill's German manual page and a scan of
GLib's README: 47 and 3) was written after that session's changes to novels, and run once on its first code and once on those changes.
``--set shelf25`` (twenty-sixth session: Node.js's timers page printed to PDF, Cachegrind's manual as HTML, pip's
secure-installs.md, w's German manual page and a scan of the IJG's README: 51 and 3) was written before that session
changed anything. ``--set shelf26`` (Node.js's console page printed to PDF, DRD's manual as HTML, Node.js's
path.md, pslog's German manual page and a scan of libjpeg-turbo's README.md: 46 and 3) was written after that
session's changes, before they ran on it.
Their documents come from Debian's ``adduser``, ``base-passwd``, ``dbus``, ``fontconfig``, ``groff-base``, ``bash``, ``bc``, ``cscope``, ``e2fsprogs``, ``fakeroot``, ``dpkg``, ``ed``, ``espeak-ng``, ``findutils``, ``gettext``, ``gnupg``,
``grep``, ``gzip``, ``coreutils``, ``jq``, ``libjpeg62-turbo-dev``, ``libjson-c5``, ``ninja-build``, ``python3-yaml``, ``xtrans-dev``, ``postgresql-common``, ``libexpat1-dev``, ``libffi-dev``, ``libglib2.0-0``, ``libtasn1-doc``, ``libxslt1-dev``, ``man-db``, ``nettle-dev``,
``nodejs``, ``passwd``, ``pkgconf``, ``procps``, ``psmisc``, ``python3-dev``, ``python3-pip``, ``sed``, ``systemd``,
``valgrind``, ``xz-utils`` and ``zstd``; a scan
needs ``tesseract-ocr`` and a printed manual ``chromium`` (a missing one is named).
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
SETS = {  # per set: documents copied (a .gz source is unpacked) and manual pages rendered, by the name they take
    "fresh": ({"dpkg-triggers.txt": "/usr/share/doc/dpkg/spec/triggers.txt",
               "zlib-how.html": "/usr/share/doc/zlib1g-dev/examples/zlib_how.html",
               "git-2.28.0-relnotes.txt": "/usr/share/doc/git/RelNotes/2.28.0.txt"},
              {"curl.1.txt": "/usr/share/man/man1/curl.1.gz"}),
    "shelf": ({"MPL-2.0.txt": "/usr/share/common-licenses/MPL-2.0",
               "uids-gids.md": "/usr/share/doc/systemd/UIDS-GIDS.md.gz",
               "users-and-groups.html": "/usr/share/doc/base-passwd/users-and-groups.html",
               "fontconfig-user.pdf": "/usr/share/doc/fontconfig/fontconfig-user.pdf.gz"},
              {"chage.de.1.txt": "/usr/share/man/de/man1/chage.1.gz"}),
    "shelf2": ({"Apache-2.0.txt": "/usr/share/common-licenses/Apache-2.0",
                "environment.md": "/usr/share/doc/systemd/ENVIRONMENT.md.gz",
                "python-policy.html": "/usr/share/doc/python3/python-policy.html",
                "libtasn1.pdf": "/usr/share/doc/libtasn1-doc/libtasn1.pdf"},
               {"chsh.de.1.txt": "/usr/share/man/de/man1/chsh.1.gz"}),
    "shelf3": ({"Artistic.txt": "/usr/share/common-licenses/Artistic",
                "zstd-README.md": "/usr/share/doc/zstd/README.md.gz",
                "libffi-the-basics.html": "/usr/share/doc/libffi8/html/The-Basics.html"},
               {"chfn.de.1.txt": "/usr/share/man/de/man1/chfn.1.gz"}),
    "shelf4": ({"LGPL-2.1.txt": "/usr/share/common-licenses/LGPL-2.1",
                "pkgconf-README.md": "/usr/share/doc/pkgconf-bin/README.md.gz",
                "xsltproc.html": "/usr/share/doc/libxslt1-dev/html/xsltproc.html",
                "nettle.pdf": "/usr/share/doc/nettle-dev/nettle.pdf.gz"},
               {"free.de.1.txt": "/usr/share/man/de/man1/free.1.gz"}),
    "shelf5": ({"CC0-1.0.txt": "/usr/share/common-licenses/CC0-1.0",
                "man-db-README.md": "/usr/share/doc/man-db/README.md.gz",
                "libxslt-tutorial.html": "/usr/share/doc/libxslt1-dev/html/tutorial/libxslttutorial.html"},
               {"fuser.de.1.txt": "/usr/share/man/de/man1/fuser.1.gz"}),
    "shelf6": ({"BSD.txt": "/usr/share/common-licenses/BSD",
                "espeak-ng-guide.md": "/usr/share/doc/espeak-ng/docs/guide.md",
                "libffi-closure-api.html": "/usr/share/doc/libffi8/html/The-Closure-API.html"},
               {"kill.de.1.txt": "/usr/share/man/de/man1/kill.1.gz"}),
    "shelf7": ({"GFDL-1.3.txt": "/usr/share/common-licenses/GFDL-1.3",
                "distro-porting.md": "/usr/share/doc/systemd/DISTRO_PORTING.md",
                "libffi-primitive-types.html": "/usr/share/doc/libffi8/html/Primitive-Types.html"},
               {"killall.de.1.txt": "/usr/share/man/de/man1/killall.1.gz"}),
    "shelf8": ({"expat-reference.html": "/usr/share/doc/libexpat1-dev/expat.html/reference.html",
                "requirement-specifiers.md": "/usr/share/doc/python3-pip/html/reference/requirement-specifiers.md"},
               {"watch.de.1.txt": "/usr/share/man/de/man1/watch.1.gz"}),
    "shelf9": ({"MPL-1.1.txt": "/usr/share/common-licenses/MPL-1.1",
                "valgrind-bbv-manual.html": "/usr/share/doc/valgrind/html/bbv-manual.html"},
               {"uptime.de.1.txt": "/usr/share/man/de/man1/uptime.1.gz"}),
    "shelf10": ({"LGPL-3.txt": "/usr/share/common-licenses/LGPL-3",
                 "valgrind-ms-manual.html": "/usr/share/doc/valgrind/html/ms-manual.html"},
                {"pmap.de.1.txt": "/usr/share/man/de/man1/pmap.1.gz"}),
    "shelf11": ({"nodejs-SECURITY.md": "/usr/share/doc/nodejs/SECURITY.md",
                 "nodejs-glossary.md": "/usr/share/doc/nodejs/glossary.md",
                 "valgrind-lk-manual.html": "/usr/share/doc/valgrind/html/lk-manual.html"},
                {"pgrep.de.1.txt": "/usr/share/man/de/man1/pgrep.1.gz"}),
    "shelf12": ({"nodejs-GOVERNANCE.md": "/usr/share/doc/nodejs/GOVERNANCE.md",
                 "valgrind-dh-manual.html": "/usr/share/doc/valgrind/html/dh-manual.html"},
                {"slabtop.de.1.txt": "/usr/share/man/de/man1/slabtop.1.gz"}),
    "shelf13": ({"valgrind-manual.pdf": "/usr/share/doc/valgrind/valgrind_manual.pdf.gz",
                 "nodejs-onboarding.md": "/usr/share/doc/nodejs/onboarding.md"},
                {"pidof.de.1.txt": "/usr/share/man/de/man1/pidof.1.gz"}),
    "shelf14": ({"espeak-ng-mbrola.html": "/usr/share/doc/espeak-ng/docs/mbrola.html",
                 "nodejs-CONTRIBUTING.md": "/usr/share/doc/nodejs/CONTRIBUTING.md"},
                {"xz.de.1.txt": "/usr/share/man/de/man1/lzma.1.gz"}),
    "shelf15": ({"GPL-2.txt": "/usr/share/common-licenses/GPL-2",
                 "espeak-ng-voices.html": "/usr/share/doc/espeak-ng/docs/voices.html",
                 "nodejs-BUILDING.md": "/usr/share/doc/nodejs/BUILDING.md"},
                {"dpkg-split.de.1.txt": "/usr/share/man/de/man1/dpkg-split.1.gz"}),
    "shelf16": ({"GPL-1.txt": "/usr/share/common-licenses/GPL-1",
                 "espeak-ng-markup.html": "/usr/share/doc/espeak-ng/docs/markup.html",
                 "nodejs-commit-queue.md": "/usr/share/doc/nodejs/contributing/commit-queue.md"},
                {"dpkg-divert.de.1.txt": "/usr/share/man/de/man1/dpkg-divert.1.gz"}),
    "shelf17": ({"LGPL-2.txt": "/usr/share/common-licenses/LGPL-2",
                 "espeak-ng-dictionary.html": "/usr/share/doc/espeak-ng/docs/dictionary.html",
                 "nodejs-issues.md": "/usr/share/doc/nodejs/contributing/issues.md"},
                {"pwdx.de.1.txt": "/usr/share/man/de/man1/pwdx.1.gz"}),
    "shelf18": ({"GPL-3.txt": "/usr/share/common-licenses/GPL-3",
                 "valgrind-faq.html": "/usr/share/doc/valgrind/html/faq.html",
                 "pip-caching.md": "/usr/share/doc/python3-pip/html/topics/caching.md.gz"},
                {"pstree.de.1.txt": "/usr/share/man/de/man1/pstree.1.gz"}),
    "shelf19": ({"valgrind-quick-start.html": "/usr/share/doc/valgrind/html/quick-start.html",
                 "pip-authentication.md": "/usr/share/doc/python3-pip/html/topics/authentication.md"},
                {"gpasswd.de.1.txt": "/usr/share/man/de/man1/gpasswd.1.gz"}),
    "shelf20": ({"postgresql-common-README.md": "/usr/share/doc/postgresql-common/README.md.gz"},
                {"passwd.de.1.txt": "/usr/share/man/de/man1/passwd.1.gz"}),
    "shelf21": ({"pip-configuration.md": "/usr/share/doc/python3-pip/html/topics/configuration.md.gz"},
                {"newgrp.de.1.txt": "/usr/share/man/de/man1/newgrp.1.gz"}),
    "shelf22": ({"pip-vcs-support.md": "/usr/share/doc/python3-pip/html/topics/vcs-support.md.gz",
                 "pip-https-certificates.md": "/usr/share/doc/python3-pip/html/topics/https-certificates.md"},
                {"pmap.de.1.txt": "/usr/share/man/de/man1/pmap.1.gz"}),
    "shelf23": ({"valgrind-readme-packagers.html": "/usr/share/doc/valgrind/html/dist.readme-packagers.html",
                 "pip-repeatable-installs.md": "/usr/share/doc/python3-pip/html/topics/repeatable-installs.md"},
                {"sg.de.1.txt": "/usr/share/man/de/man1/sg.1.gz"}),
    "shelf24": ({"valgrind-readme-developers.html": "/usr/share/doc/valgrind/html/dist.readme-developers.html"},
                {"skill.de.1.txt": "/usr/share/man/de/man1/skill.1.gz"}),
    "shelf25": ({"valgrind-cg-manual.html": "/usr/share/doc/valgrind/html/cg-manual.html",
                 "pip-secure-installs.md": "/usr/share/doc/python3-pip/html/topics/secure-installs.md.gz"},
                {"w.de.1.txt": "/usr/share/man/de/man1/w.1.gz"}),
    "shelf26": ({"valgrind-drd-manual.html": "/usr/share/doc/valgrind/html/drd-manual.html",
                 "node-path.md": "/usr/share/doc/nodejs/api/path.md"},
                {"pslog.de.1.txt": "/usr/share/man/de/man1/pslog.1.gz"}),
}
SCANS = {"shelf5": {"bash-intro-scan.pdf": "/usr/share/doc/bash/INTRO.gz"},
         "shelf6": {"bc-readme-scan.pdf": "/usr/share/doc/bc/README"},
         "shelf7": {"grep-readme-scan.pdf": "/usr/share/doc/grep/README"},
         "shelf8": {"sed-readme-scan.pdf": "/usr/share/doc/sed/README"},
         "shelf10": {"gzip-readme-scan.pdf": "/usr/share/doc/gzip/README.gz"},
         "shelf11": {"findutils-readme-scan.pdf": "/usr/share/doc/findutils/README.gz"},
         "shelf12": {"ed-readme-scan.pdf": "/usr/share/doc/ed/README.gz"},
         "shelf13": {"jq-readme-scan.pdf": "/usr/share/doc/jq/README"},
         "shelf14": {"gettext-readme-scan.pdf": "/usr/share/doc/gettext/README"},
         "shelf15": {"cscope-readme-scan.pdf": "/usr/share/doc/cscope/README"},
         "shelf16": {"fakeroot-readme-scan.pdf": "/usr/share/doc/fakeroot/README"},
         "shelf17": {"e2fsprogs-readme-scan.pdf": "/usr/share/doc/e2fsprogs/README"},
         "shelf18": {"adduser-readme-scan.pdf": "/usr/share/doc/adduser/README.gz"},
         "shelf19": {"groff-readme-scan.pdf": "/usr/share/doc/groff-base/README.gz"},
         "shelf20": {"coreutils-readme-scan.pdf": "/usr/share/doc/coreutils/README.gz"},
         "shelf21": {"pyyaml-readme-scan.pdf": "/usr/share/doc/python3-yaml/README.md"},
         "shelf22": {"dbus-readme-scan.pdf": "/usr/share/doc/dbus/README.gz"},
         "shelf23": {"gnupg-readme-scan.pdf": "/usr/share/doc/gnupg/README.gz"},
         "shelf24": {"glib-readme-scan.pdf": "/usr/share/doc/libglib2.0-0/README.md"},
         "shelf25": {"libjpeg-readme-scan.pdf": "/usr/share/doc/libjpeg62-turbo-dev/README.ijg.gz"},
         "shelf26": {"libjpeg-turbo-readme-scan.pdf": "/usr/share/doc/libjpeg62-turbo-dev/README.md.gz"}}
"""Per set: image-only PDFs made of a text's first page (typeset, rendered at 200 dpi): what a scanner makes."""
SCAN_LINES = 58
PRINTS = {"shelf20": {"ninja-manual.pdf": "/usr/share/doc/ninja-build/manual.html",
                      "json-c-README.pdf": "/usr/share/doc/libjson-c5/README.html"},
          "shelf21": {"xtrans.pdf": "/usr/share/doc/xtrans-dev/xtrans.html"},
          "shelf22": {"corepack.pdf": "/usr/share/doc/nodejs/api/corepack.html"},
          "shelf23": {"node-debugger.pdf": "/usr/share/doc/nodejs/api/debugger.html"},
          "shelf24": {"node-tty.pdf": "/usr/share/doc/nodejs/api/tty.html"},
          "shelf25": {"node-timers.pdf": "/usr/share/doc/nodejs/api/timers.html"},
          "shelf26": {"node-console.pdf": "/usr/share/doc/nodejs/api/console.html"}}
"""Per set: HTML manuals printed to PDF by headless Chromium (A4-ish pages, no header or footer): a PDF manual."""


def norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w.%+-]+", " ", unicodedata.normalize("NFKC", text or "").lower()).split())


def has(text: str, golds: list[str]) -> bool:
    padded = f" {norm(text)} "
    return any(norm(g) and f" {norm(g)} " in padded for g in golds)


def corpus(folder: Path, name: str) -> Path:
    """The set's documents, copied or rendered into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    copied, pages = SETS[name]
    for source in {**copied, **pages, **SCANS.get(name, {}), **PRINTS.get(name, {})}.values():
        if not Path(source).exists():
            sys.exit(f"{source} is missing: install the Debian package that ships it")
    for target, source in copied.items():
        data = Path(source).read_bytes()
        (folder / target).write_bytes(gzip.decompress(data) if source.endswith(".gz") else data)
    if pages and not shutil.which("groff"):
        sys.exit("groff is missing: apt-get install groff")
    for target, source in pages.items():
        page = gzip.decompress(Path(source).read_bytes())
        rendered = subprocess.run(["groff", "-Kutf-8", "-man", "-Tutf8"], input=page, capture_output=True, check=True).stdout
        text = re.sub(r".\x08", "", rendered.decode("utf-8", errors="replace"))  # what col -b does: no overstrikes
        (folder / target).write_text(re.sub(r"\x1b\[[0-9;]*m", "", text), encoding="utf-8")
    for target, source in SCANS.get(name, {}).items():
        data = Path(source).read_bytes()
        (folder / target).write_bytes(scan((gzip.decompress(data) if source.endswith(".gz") else data).decode("latin-1")))
    if PRINTS.get(name) and not shutil.which("chromium"):
        sys.exit("chromium is missing: apt-get install chromium")
    for target, source in PRINTS.get(name, {}).items():
        if not (folder / target).exists():  # printed once: a reprint differs in its PDF metadata
            subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
                            f"--print-to-pdf={folder / target}", Path(source).as_uri()], capture_output=True, check=True)
    return folder


def scan(text: str) -> bytes:
    """A scan of the text's first page: typeset in Helvetica, rendered to grey pixels, wrapped as an image."""
    sys.path.insert(0, str(HERE.parent))
    from tests.fakes import scanned, text_pdf

    lines = [re.sub(r"([\\()])", r"\\\1", line.expandtabs()) for line in text.splitlines()[:SCAN_LINES]]
    return scanned(text_pdf([[(50.0, 760.0 - 12.5 * i, line) for i, line in enumerate(lines)]]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", default="fresh", choices=sorted(SETS))
    parser.add_argument("--llm", default="none")
    parser.add_argument("--workspace", default="")
    args = parser.parse_args()
    from karaka.app.runner import run_ingest, run_query
    from karaka.config import resolve_context

    with tempfile.TemporaryDirectory() as tmp:
        workspace = args.workspace or str(Path(tmp) / "ws")
        docs = corpus(Path(f"{args.workspace}.source") if args.workspace else Path(tmp) / "docs", args.set)  # one path for a
        # workspace's reruns: a new temporary path made each document a second one beside the first, and answers drifted
        run_ingest(resolve_context({"workspace": workspace, "llm": "none", "extractor": "parser"}), docs)
        ctx = resolve_context({"workspace": workspace, "llm": args.llm})
        questions = json.loads((HERE / "data" / args.set / "questions.json").read_text(encoding="utf-8"))
        right = grounded = wrong = refused = first = cited = 0
        for q in questions:
            result = run_query(ctx, q["question"])
            texts = [str(c.get("text", "")) for c in result.get("citations") or []]
            first += q["answerable"] and bool(texts) and has(texts[0], q["gold"])  # as blind_eval.py counts them
            cited += q["answerable"] and any(has(t, q["gold"]) for t in texts)
            answer = re.sub(r"\[[^\],]*,[^\]]*\]", " ", result["answer"])  # citations, not "time[1-4].google.com"
            ok = result["status"] == "GROUNDED" and has(answer, q["gold"])
            grounded += result["status"] == "GROUNDED"
            wrong += result["status"] == "GROUNDED" and not ok
            right += ok and q["answerable"]
            refused += not q["answerable"] and result["status"] != "GROUNDED"
            mark = ("RIGHT" if ok else "wrong") if q["answerable"] else ("refused" if result["status"] != "GROUNDED"
                                                                         else "WRONG")
            line = "1st" if texts and has(texts[0], q["gold"]) else "cit" if any(has(t, q["gold"]) for t in texts) else "-"
            print(f"{q['id']:4} {mark:7} {result['status']:9} {line:3} {q['question'][:70]!r} -> "
                  f"{'; '.join(result['answers'])[:60]!r}")
        answerable = sum(q["answerable"] for q in questions)
        print(f"{args.set} ({args.llm}): right {right}/{answerable}, first cited line holds it {first}/{answerable}, "
              f"a cited line holds it {cited}/{answerable}, refused {refused}/{len(questions) - answerable}, "
              f"GROUNDED wrong {wrong}/{grounded}")


if __name__ == "__main__":
    main()
