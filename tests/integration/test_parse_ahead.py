"""Parsing ahead in a second process gives the same workspace as parsing in the run's own process."""

import json
import logging
from importlib.resources import files

import pytest

from karaka.app.runner import run_ingest
from karaka.config import Context
from karaka.nlp import ahead as parse_ahead
from karaka.nodes import ingest
from karaka.services import get_services

CORPUS = files("karaka") / "data" / "corpus"


def _ingest(folder):
    ctx = Context(workspace=str(folder), llm="simulated", window=1)  # a unit a sentence: many blocks to parse
    report = run_ingest(ctx, CORPUS)
    rows = get_services(ctx).workspace.records.results()
    units = {(r["unit_id"], r["status"], json.dumps(r["payload"], sort_keys=True)) for r in rows}
    return report["gsv"], units, json.loads((folder / "graph.json").read_text())


@pytest.fixture
def processes(monkeypatch):
    """Small blocks and no minimum run length, so the demo corpus is parsed in a process, block by block."""
    started = []
    real = parse_ahead.ParseProcess.__init__

    def counted(self):
        real(self)
        started.append(self)

    monkeypatch.setattr(parse_ahead.ParseProcess, "__init__", counted)
    monkeypatch.setattr(ingest, "BLOCK", 8)
    monkeypatch.setattr(ingest, "MIN_SENTENCES", 1)
    monkeypatch.setattr(parse_ahead.ahead, "failed", False)
    yield started
    parse_ahead.ahead.stop()


def test_the_parsing_process_changes_nothing_but_where_the_parse_runs(tmp_path, processes, monkeypatch):
    monkeypatch.setattr(ingest, "MIN_SENTENCES", 10**9)
    here = _ingest(tmp_path / "here")
    assert processes == []
    monkeypatch.setattr(ingest, "MIN_SENTENCES", 1)
    there = _ingest(tmp_path / "there")
    assert len(processes) == 1 and processes[0]._process.poll() is not None  # started once, stopped at write
    assert parse_ahead.ahead.process is None
    assert here == there and len(here[1]) > 20


def test_a_parsing_process_that_dies_is_replaced_by_parsing_here(tmp_path, processes, monkeypatch, caplog):
    monkeypatch.setattr(ingest, "MIN_SENTENCES", 10**9)
    reference = _ingest(tmp_path / "reference")
    monkeypatch.setattr(ingest, "MIN_SENTENCES", 1)
    real_send = parse_ahead.ParseProcess.send

    def dying(self, key, texts):
        real_send(self, key, texts)
        self._process.kill()  # killed with a block on its way

    monkeypatch.setattr(parse_ahead.ParseProcess, "send", dying)
    with caplog.at_level(logging.WARNING, logger="karaka.nlp"):
        survived = _ingest(tmp_path / "survived")
    assert "the parsing process stopped" in caplog.text
    assert survived == reference
    assert len(processes) == 1 and parse_ahead.ahead.failed  # not started again for every block
