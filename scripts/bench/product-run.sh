#!/usr/bin/env bash
# Runs the product-loop benches (bench/product/) on the GPU machine (device `run`, carry ["bench/out/gpu-kit"]);
# results go to $OUT. Each bench runs on WebGPU (dawn.node), then on WASM; arguments after the script go to each.
#   [BENCH=llm-loop|tts-loop|asr-loop|pipeline-loop] [DEVICES='webgpu wasm'] (asr-loop also takes webgpu-all) bash scripts/bench/product-run.sh [--tokens 64] [--rounds 4]
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/bench/gpu-setup.sh
cp "$KIT"/product-*.mjs /tmp/kit/
export SIDETALK_ORT_DIST=/tmp/kit/ort SIDETALK_THREADS=${SIDETALK_THREADS:-4} SIDETALK_POCKET_FIXTURE=$KIT/pocket-fixture \
  SIDETALK_PIPELINE_MIC=$KIT/pipeline
rc=0
for bench in /tmp/kit/product-${BENCH:-*}.mjs; do
  name=$(basename "$bench" .mjs)
  case "$name" in *-thread) continue ;; esac # a worker thread a bench starts (product-tts-decoder-thread), not a bench
  for device in ${DEVICES:-webgpu wasm}; do
    if [ "${device#webgpu}" != "$device" ]; then export SIDETALK_WEBGPU_MODULE=/tmp/kit/webgpu/index.js; else unset SIDETALK_WEBGPU_MODULE; fi
    echo "== $name $device"
    timeout "${TIMEOUT_S:-240}" "$NODE" "$bench" --device "$device" --out "$OUT/$name-$device.json" "$@" \
      > "$OUT/$name-$device.stdout" 2> "$OUT/$name-$device.stderr" || { echo "exit $?"; rc=1; }
    grep -v -E 'Warning: max(Dynamic)' "$OUT/$name-$device.stderr" | tail -20
  done
done
exit $rc
