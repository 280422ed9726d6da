#!/usr/bin/env bash
# Builds bench/out/browser-kit/kit.tar.xz (git-ignored) for the in-browser GPU bench (bench/gpu-browser/run.ts;
# docs/benchmarks.md, "Chromium on the GPU machine"): the bench driver bundled for Node, playwright-core beside it, the
# test build of the extension pinned to the real-size hub that bench/gpu-browser/gpu-hub.ts writes (seeded, so the GPU
# machine writes the same bytes again and the driver checks the manifest hash), and the fake microphone's WAV
# (espeak-ng is not on the GPU machine). Node itself comes from the stage-bench kit (scripts/bench/build-gpu-kit.sh).
# Needs: npm ci, espeak-ng and sox, ~2.5 GB free in /tmp. Builds the test build (npm run build:test) first: the bench drives its test hooks.
set -euo pipefail
cd "$(dirname "$0")/../.."
KIT=bench/out/browser-kit
STAGE=$KIT/stage
rm -rf "$KIT" && mkdir -p "$STAGE/node_modules"
HUB=$(mktemp -d)
trap 'rm -rf "$HUB"' EXIT
npx jiti bench/gpu-browser/gpu-hub.ts "$HUB" --manifest-out "$KIT/gpu-manifest.json"
npm run build:test >/dev/null
EXT=$(npx jiti bench/gpu-browser/build-extension.ts "$KIT/gpu-manifest.json")
cp -a "$EXT" "$STAGE/chrome-mv3"
npx jiti bench/gpu-browser/build-extension.ts "$KIT/gpu-manifest.json" --hash > "$STAGE/gpu-manifest.sha256"
npx rolldown -c bench/gpu-browser/rolldown.config.mjs >/dev/null
cp -a node_modules/playwright-core "$STAGE/node_modules/"
WAV=$(npx jiti bench/gpu-browser/write-mic.ts)
cp "$WAV" "$STAGE/mic.wav"
# Questions at least 12 s apart, so a reply on a slower adapter finishes before the next question (--mic-gap 12).
cp "$(npx jiti bench/gpu-browser/write-mic.ts --gap 12)" "$STAGE/mic-gap12.wav"
# 10 s: 20 turns in ~4.5 minutes, once a turn's prefill starts from the system prompt's checkpoint.
cp "$(npx jiti bench/gpu-browser/write-mic.ts --gap 10)" "$STAGE/mic-gap10.wav"
tar cf - -C "$STAGE" . | xz -6 -T2 > "$KIT/kit.tar.xz"
du -sh "$STAGE"/* "$KIT/kit.tar.xz"
