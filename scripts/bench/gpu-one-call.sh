#!/usr/bin/env bash
# The GPU machine's most useful numbers in ONE device call (≤ 600 s), for leases that may not last a second call:
# staged by stage-one-call.sh, carry ["bench/out/gpu-one"]. In order, each saved to $OUT/all.tgz as soon as it ends
# (so a call cut short still returns what finished; $OUT returns at most 8 files):
#   1. page search's embedding index of the 15k / 60k / 250k-word pages on WebGPU (bench/retrieval/gpu-index.ts --whole)
#   2. the LLM product loop, plain vs static-KV captured decode (bench/product/llm-loop.ts; genai-builder structure)
#   3. the whole offscreen pipeline end to end on WebGPU (bench/product/pipeline-loop.ts, 8 turns)
#   4. the voice's product loop on WASM, 4 threads, chunk-sized vs declared caches (bench/product/tts-loop.ts)
set -uo pipefail
cd "$(dirname "$0")/../.."
R=${OUT:-$PWD/bench/out/gpu-out}
rm -rf bench/out/gpu-kit && mv bench/out/gpu-one bench/out/gpu-kit
export OUT=/tmp/one && mkdir -p "$OUT"
save() { tar czf "$R/all.tgz" -C "$OUT" . && echo "== saved after $1 ($(date +%T))"; }
source scripts/bench/gpu-setup.sh; save setup
timeout "${RETRIEVAL_S:-150}" "$NODE" bench/out/gpu-kit/retrieval-index.mjs --whole bench/out/gpu-kit/retrieval-whole.json \
  /tmp/kit/ort /tmp/kit/webgpu/index.js 4 > "$OUT/retrieval-whole.json" 2> "$OUT/retrieval-whole.stderr"
echo "retrieval exit $?"; save retrieval
BENCH=llm-loop DEVICES=webgpu TIMEOUT_S=${LLM_S:-150} bash scripts/bench/product-run.sh --graph genai-builder --tokens 64 --rounds 2
save llm
BENCH=pipeline-loop DEVICES=webgpu TIMEOUT_S=${PIPELINE_S:-180} bash scripts/bench/product-run.sh --shape full --turns 8
save pipeline
SIDETALK_THREADS=4 BENCH=tts-loop DEVICES=wasm TIMEOUT_S=${TTS_S:-80} bash scripts/bench/product-run.sh --rounds 2 --frames 24
save tts
ls -la "$OUT"
