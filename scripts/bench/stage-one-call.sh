#!/usr/bin/env bash
# Stages the GPU machine's one-call bench (gpu-one-call.sh) in bench/out/gpu-one: the stage-bench kit's Node, ORT and
# dawn.node, the product-loop bundles it runs and the retrieval kit, hard-linked from bench/out/{gpu-kit,retrieval-kit}
# (build them first: scripts/bench/build-gpu-kit.sh, `npx jiti bench/retrieval/run.ts --gpu-kit`), then checks that the
# call fits the carry limit. The device call: carry ["bench/out/gpu-one"], command `bash scripts/bench/gpu-one-call.sh`.
set -euo pipefail
cd "$(dirname "$0")/../.."
K=bench/out/gpu-kit R=bench/out/retrieval-kit S=bench/out/gpu-one
rm -rf "$S" && mkdir -p "$S"
cp -al "$K"/{kit.tar.xz,gl,gpu-bench.mjs,product-llm-loop.mjs,product-tts-loop.mjs,product-pipeline-loop.mjs,pipeline,pocket-fixture} "$S"/
cp -al "$R"/{retrieval-index.mjs,retrieval-whole.json} "$S"/
bash scripts/bench/carry-size.sh "$S"
