#!/usr/bin/env bash
# Runs the stage benches on the GPU machine (device `run`, carry ["bench/out/gpu-kit"]); results go to $OUT.
#   bash scripts/bench/gpu-run.sh [--only id1,id2 | --only 'x-*'] [extra run.ts args]
#   JOBS=smoke-webgpu bash scripts/bench/gpu-run.sh      the tiny graphs on the GPU (a minute; checks new code paths)
# Follows reference/gpu-bench.md §2 and the device README: unpack the Vulkan/GL loaders, point the loader at the
# NVIDIA ICD, probe the adapter, then run every job of the GPU plan in its own process.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/bench/gpu-setup.sh
cd /tmp/kit
"$NODE" gpu-bench.mjs --jobs ${JOBS:-gpu} --dist /tmp/kit/ort --webgpu-module /tmp/kit/webgpu/index.js --out "$OUT/stages.json" --timeout-s 100 --deadline-s ${DEADLINE_S:-500} "$@" \
  > "$OUT/stdout.json" 2> "$OUT/stderr.log"
rc=$?
grep -v -E 'Warning: max(Dynamic)' "$OUT/stderr.log" | tail -80
[ -f "$OUT/stages.md" ] && cat "$OUT/stages.md"
exit $rc
