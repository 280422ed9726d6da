#!/usr/bin/env bash
# Which flags give Chromium's pages the NVIDIA adapter on the GPU machine (docs/benchmarks.md, "Chromium on the GPU
# machine"). One headless Chromium per flag set opens scripts/bench/webgpu-probe.html; its PROBE line and the GPU
# process's own lines about GL/Vulkan/WebGPU go to $OUT/probe.jsonl and $OUT/probe-<n>.log.
#   source-side: bash scripts/bench/chromium-gpu-probe.sh            (after chromium-gpu-setup.sh has unpacked the kit)
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/bench/chromium-gpu-setup.sh || exit 1
OUT=${OUT:-$PWD/bench/out/gpu-out}; mkdir -p "$OUT"
PAGE="file://$PWD/scripts/bench/webgpu-probe.html"
BASE="--headless=new --no-sandbox --disable-gpu-sandbox --disable-dev-shm-usage --no-first-run --enable-logging=stderr --v=0 --enable-unsafe-webgpu --ignore-gpu-blocklist"
# One flag set per line of $SETS_FILE (default: scripts/bench/chromium-gpu-flag-sets.txt; # starts a comment).
mapfile -t SETS < <(grep -v '^#' "${SETS_FILE:-scripts/bench/chromium-gpu-flag-sets.txt}" | grep -v '^ *$')
: > "$OUT/probe.jsonl"
n=0
for set in "${SETS[@]}"; do
  n=$((n + 1))
  prof=$(mktemp -d)
  # shellcheck disable=SC2086
  LD_LIBRARY_PATH=$CR_LIBS timeout 40 "$CHROMIUM" $BASE $set --user-data-dir="$prof" "$PAGE" > "$OUT/probe-$n.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 80); do grep -aq 'PROBE ' "$OUT/probe-$n.log" && break; sleep 0.5; done
  kill $pid 2>/dev/null; wait $pid 2>/dev/null
  line=$(grep -ao 'PROBE {.*}' "$OUT/probe-$n.log" | head -1 | sed 's/^PROBE //; s/", source: .*//')
  [ -n "$line" ] || line='{"ok":false,"error":"no PROBE line"}'
  printf '{"set":%s,"result":%s}\n' "$(printf '%s' "$set" | python3 -c 'import json,sys;print(json.dumps(sys.stdin.read()))' 2>/dev/null || echo "\"$set\"")" "$line" >> "$OUT/probe.jsonl"
  echo "== $n: $set"; echo "$line"
  grep -aiE 'vulkan|webgpu|interop|angle|gpu_init|gpu process|dawn|adapter' "$OUT/probe-$n.log" | grep -avE 'CONSOLE|dbus|font' | cut -c1-240 | sort | uniq -c | sort -rn | head -12
  if [ -n "${GPU_PAGE:-}" ]; then  # chrome://gpu as the browser reports it (feature status, Skia backend, Vulkan info)
    prof2=$(mktemp -d)
    # shellcheck disable=SC2086
    LD_LIBRARY_PATH=$CR_LIBS timeout 30 "$CHROMIUM" $BASE $set --user-data-dir="$prof2" --virtual-time-budget=8000 --dump-dom chrome://gpu \
      2>/dev/null | sed 's/<[^>]*>/ /g; s/  */ /g' > "$OUT/gpu-page-$n.txt"
    grep -aiE 'webgpu|vulkan|skia backend|gl_renderer|GL implementation|interop' "$OUT/gpu-page-$n.txt" | head -12
    rm -rf "$prof2"
  fi
  rm -rf "$prof"
done
