#!/usr/bin/env bash
# Runs the stage benches on the GPU machine (device `run`, carry ["bench/out/gpu-kit"]); results go to $OUT.
#   bash scripts/bench/gpu-run.sh [--only id1,id2 | --only 'x-*'] [extra run.ts args]
#   JOBS=smoke-webgpu bash scripts/bench/gpu-run.sh      the tiny graphs on the GPU (a minute; checks new code paths)
# Follows reference/gpu-bench.md §2 and the device README: unpack the Vulkan/GL loaders, point the loader at the
# NVIDIA ICD, probe the adapter, then run every job of the GPU plan in its own process.
set -uo pipefail
cd "$(dirname "$0")/../.."
KIT=$PWD/bench/out/gpu-kit
OUT=${OUT:-$PWD/bench/out/gpu-out}
mkdir -p "$OUT" /tmp/kit /tmp/xdg
for f in "$KIT"/gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
export __EGL_VENDOR_LIBRARY_FILENAMES=${__EGL_VENDOR_LIBRARY_FILENAMES:-/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json}
export XDG_RUNTIME_DIR=/tmp/xdg
[ -f "$VK_DRIVER_FILES" ] || export VK_DRIVER_FILES=$(ls /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json 2>/dev/null | head -1)
tar xJf "$KIT/kit.tar.xz" -C /tmp/kit
cp "$KIT/gpu-bench.mjs" /tmp/kit/
NODE=/tmp/kit/node
{
  echo "== machine"; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
  lscpu 2>/dev/null | grep -E 'Model name|^CPU\(s\)'; echo "VK_DRIVER_FILES=$VK_DRIVER_FILES"
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"
cd /tmp/kit
"$NODE" gpu-bench.mjs --jobs ${JOBS:-gpu} --dist /tmp/kit/ort --webgpu-module /tmp/kit/webgpu/index.js --out "$OUT/stages.json" --timeout-s 100 --deadline-s ${DEADLINE_S:-500} "$@" \
  > "$OUT/stdout.json" 2> "$OUT/stderr.log"
rc=$?
grep -v -E 'Warning: max(Dynamic)' "$OUT/stderr.log" | tail -80
[ -f "$OUT/stages.md" ] && cat "$OUT/stages.md"
exit $rc
