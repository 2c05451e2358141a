"""Word error rate of the speech recogniser on sentences spoken by espeak-ng (Debian), one run.

    python benchmarks/speech_wer.py [--model DIR] [--voice en] [--speed 175]

The sentences are made up (plain English; names are where synthetic speech and a small model fail
most, so a few are in). Prints each sentence with what was heard, its WER, the mean WER and the
seconds to recognise each. ``--model`` names a faster-whisper model directory (default: the packaged
Whisper tiny.en).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SENTENCES = [
    "The river flooded the fields in May.",
    "The old bridge was built from stone and wood.",
    "A small boat carried the letters across the lake every morning.",
    "The farmers sold their grain at the market.",
    "What is the default compression level?",
    "Which command removes a package and its configuration files?",
    "She opened the window and the cold air filled the room.",
    "Hanuman crossed the ocean to find Sita.",
    "The captain steered the ship toward the western islands.",
    "How many pages does the manual have?",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="", help="a faster-whisper model directory (default: packaged tiny.en)")
    parser.add_argument("--voice", default="en")
    parser.add_argument("--speed", type=int, default=175, help="espeak-ng words per minute")
    args = parser.parse_args()
    from karaka.evaluation import word_error_rate
    from karaka.loading.audio import transcribe

    rates, seconds = [], []
    with tempfile.TemporaryDirectory(prefix="karaka-wer-") as folder:
        for n, sentence in enumerate(SENTENCES):
            wav = Path(folder) / f"{n}.wav"
            subprocess.run(["espeak-ng", "-v", args.voice, "-s", str(args.speed), "-w", str(wav), sentence],
                           check=True, timeout=60)
            started = time.perf_counter()
            heard = " ".join(text for _, text in transcribe(wav, args.model))
            seconds.append(time.perf_counter() - started)
            rates.append(word_error_rate(sentence, heard))
            print(f"{rates[-1]:5.2f}  {sentence}  →  {heard}")
    print(f"mean WER {statistics.mean(rates):.3f} over {len(rates)} sentences (median {statistics.median(rates):.3f}); "
          f"median {statistics.median(seconds):.2f} s to recognise one (the first includes loading the model)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
