"""Recordings and spoken questions with the real recogniser (Whisper tiny.en, shipped in a package) on speech
that espeak-ng makes from made-up sentences: documents cited at their time, questions asked aloud."""

from pathlib import Path

import httpx
import pytest

from karaka.app.api import create_app
from karaka.app.runner import run_ingest, run_query
from karaka.config import Context
from karaka.evaluation import word_error_rate
from karaka.loading import DocumentError, hear, load_and_refine_documents
from karaka.loading.audio import transcribe
from tests.fakes import speech
from tests.server_util import serve_in_thread

pytestmark = pytest.mark.slow

SAID = ["The river flooded the fields in May.", "The old bridge was built from stone and wood.",
        "A small boat carried the letters across the lake every morning.", "The farmers sold their grain at the market."]


def test_spoken_sentences_are_recognised_offline_with_few_word_errors(tmp_path):
    rates = []
    for n, sentence in enumerate(SAID):
        heard = " ".join(text for _, text in transcribe(speech(tmp_path / f"s{n}.wav", sentence)))
        rates.append(word_error_rate(sentence, heard))
    assert sum(rates) / len(rates) <= 0.25, rates


def test_recordings_are_documents_whose_lines_are_cited_at_their_time(tmp_path):
    docs = tmp_path / "docs"
    speech(docs / "lecture.flac", "The river flooded the fields in May.", "The farmers left the valley after the flood.")
    speech(docs / "talk.mp3", "The old bridge was built from stone and wood.")
    speech(docs / "notes.ogg", "A small boat carried the letters across the lake every morning.")
    speech(docs / "quiet.wav", pause=3.0)  # no sentence at all: silence
    (docs / "broken.mp3").write_bytes(b"ID3\x03\x00\x00\x00" + bytes(range(256)) * 8)
    loaded = load_and_refine_documents(docs)
    assert sorted(d.name for d in loaded.docs) == ["lecture", "notes", "talk"]
    reasons = {Path(s["path"]).name: s["error"] for s in loaded.skipped}
    assert "no speech found" in reasons["quiet.wav"] and "not a readable recording" in reasons["broken.mp3"]
    lecture = next(d for d in loaded.docs if d.name == "lecture").lines
    first, second = (s.verse for s in lecture)
    assert first == "0:00" and second.startswith("0:0") and 3 <= int(second[-1]) <= 7  # when each is spoken
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    report = run_ingest(ctx, docs)
    assert report["documents"] == 3 and len(report["skipped_files"]) == 2
    result = run_query(ctx, "What flooded the fields?")
    assert result["status"] == "GROUNDED" and result["answers"][0].lower() == "the river"
    assert result["citations"][0]["cite"] == "[lecture, 0:00]" and result["citations"][0]["time"] == "0:00"
    assert "verse" not in result["citations"][0]
    later = run_query(ctx, "What did the farmers leave after the flood?")
    assert f"[lecture, {second}]" in later["answer"], later["answer"]


def test_a_question_asked_aloud_from_the_command_line_http_and_refused_when_silent(tmp_path):
    import subprocess
    import sys

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "farm.txt").write_text("The river flooded the fields in May.\nThe farmers left the valley.\n", encoding="utf-8")
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, docs)
    question = speech(tmp_path / "question.wav", "What flooded the fields?")
    assert hear(question) == "What flooded the fields?"
    asked = subprocess.run([sys.executable, "-m", "karaka.app.cli", "ask", "--workspace", ctx.workspace, "--audio",
                            str(question)], capture_output=True, text=True, timeout=300)
    assert asked.returncode == 0, asked.stderr
    assert "🎤 heard: What flooded the fields?" in asked.stdout and "The river [farm, Line 1]" in asked.stdout
    silent = speech(tmp_path / "silent.wav", pause=2.0)
    with pytest.raises(DocumentError, match="no speech found"):
        hear(silent)
    with serve_in_thread(create_app(ctx)) as url, httpx.Client(base_url=url, timeout=120) as client:
        reply = client.post("/chat", files={"audio": ("question.wav", question.read_bytes(), "audio/wav")},
                            data={"thread_id": "aloud"})
        assert reply.status_code == 200, reply.text
        body = reply.json()
        assert body["heard"] == "What flooded the fields?" and body["thread_id"] == "aloud"
        assert body["output"]["answers"] == ["The river"]
        refused = client.post("/chat", files={"audio": ("silent.wav", silent.read_bytes(), "audio/wav")})
        assert refused.status_code == 422 and "no speech found" in refused.json()["error"]
        assert str(tmp_path) not in refused.text  # no server path in the reason
        bare = client.post("/chat", files={"other": ("x.txt", b"hello", "text/plain")})
        assert bare.status_code == 422 and "audio" in bare.json()["error"]
    assert not any((Path(ctx.workspace) / "uploads").rglob("*.wav"))  # a spoken question is not kept
