#!/usr/bin/env bash
# The in-browser GPU bench on the GPU machine (docs/benchmarks.md, "Chromium on the GPU machine"), in the same warm
# lease as the calls that carried Chromium (chromium-gpu-setup.sh) and Node (the stage-bench kit, unpacked to /tmp/kit
# by gpu-setup.sh): carry ["bench/out/browser-kit/kit.tar.xz"]. Results go to $OUT.
#   GPU_FLAGS='…' bash scripts/bench/chromium-gpu-bench.sh [--turns 20] [--minutes 7] [--set section.key=value]
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/bench/chromium-gpu-setup.sh || exit 1
OUT=${OUT:-$PWD/bench/out/gpu-out}; mkdir -p "$OUT"
NODE=${NODE:-/tmp/kit/node}
[ -x "$NODE" ] || { echo "no node at $NODE: run scripts/bench/product-run.sh (or gpu-setup.sh) in this lease first"; exit 1; }
mkdir -p /root/bk && xz -dc -T4 bench/out/browser-kit/kit.tar.xz | tar xf - -C /root/bk
if [ -z "${GPU_FLAGS:-}" ]; then
  # The first flag set of the probe list whose page gets a hardware (non-fallback) adapter.
  SETS_FILE=${SETS_FILE:-scripts/bench/chromium-gpu-flag-sets.txt} bash scripts/bench/chromium-gpu-probe.sh > "$OUT/probe-summary.txt" 2>&1
  GPU_FLAGS=$(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["result"].get("ok") and r["result"]["adapter"].get("fallback") is False:
        print(r["set"].split(" --vmodule")[0]); break
' "$OUT/probe.jsonl")
  echo "probe picked: ${GPU_FLAGS:-none}"
  [ -n "$GPU_FLAGS" ] || { echo "no flag set gave pages the hardware adapter"; exit 2; }
fi
# Playwright starts this wrapper as its browser: Chromium with the kit's libraries and the GPU flags.
cat > /root/bk/chromium.sh <<WRAP
#!/bin/sh
export LD_LIBRARY_PATH=$CR_LIBS
exec $CHROMIUM ${GPU_FLAGS:-} "\$@"
WRAP
chmod +x /root/bk/chromium.sh
export SIDETALK_CHROMIUM=/root/bk/chromium.sh SIDETALK_GPU_FLAGS="${GPU_FLAGS:-}"
# The bundle reads the fixtures it builds on (tokenizer model, word vectors) relative to its own file, as the sources
# do from tests/fixtures/<folder>/: so it runs from a folder there, with playwright-core beside it.
BENCH_DIR=$PWD/tests/fixtures/.bench
mkdir -p "$BENCH_DIR" && cp -a /root/bk/gpu-browser.mjs /root/bk/node_modules "$BENCH_DIR/"
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv
timeout "${TIMEOUT_S:-540}" "$NODE" "$BENCH_DIR/gpu-browser.mjs" --extension /root/bk/chrome-mv3 --hub /root/gpu-hub --mic /root/bk/${MIC:-mic.wav} \
  --out "$OUT/gpu-browser" "$@" 2> >(tee "$OUT/gpu-browser.stderr" | grep -v -E 'Warning: max' | tail -60 >&2)
