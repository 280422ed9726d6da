/**
 * Generation-loop overhead of LlmRuntime on the fixture LFM2 (Node, onnxruntime-node via transformers.js, loaded over
 * HTTP from the local hub server): time per generated token in our loop (streamer, stopping criteria, prefix-cache
 * bookkeeping, transformers' sampling and cache threading) divided by the raw decoder session.run time per token.
 * The fixture graph is tiny, so this isolates the JS per-token cost; on real weights session.run dominates.
 * Run: npx jiti bench/models/loop-overhead.ts   (prints JSON)
 */
import { performance } from 'node:perf_hooks';
import type { Tensor } from '@huggingface/transformers';
import { LlmRuntime } from '../../models/llm/llm-runtime';
import { startFixtureHub } from '../../tests/unit/models/hub-env';

const TOKENS = 64;
const ROUNDS = 5;

async function main(): Promise<void> {
  const hub = await startFixtureHub();
  const llm = await LlmRuntime.load({ device: 'cpu', warmUp: true });
  const session = (llm.model as unknown as { sessions: Record<string, { run: (f: Record<string, Tensor>) => Promise<unknown> }> })
    .sessions.model!;
  const run = session.run.bind(session);
  let runMs = 0;
  let runs = 0;
  session.run = async (feeds) => {
    const t0 = performance.now();
    try {
      return await run(feeds);
    } finally {
      runMs += performance.now() - t0;
      runs += 1;
    }
  };
  const perRound: Array<{ loopMsPerToken: number; runMsPerToken: number; ratio: number }> = [];
  for (let r = 0; r < ROUNDS; r++) {
    await llm.resetCache();
    runMs = 0;
    runs = 0;
    const t0 = performance.now();
    // Greedy, no EOS stop for most prompts within 64 tokens; count actual tokens.
    const { stats } = await llm.generate([{ role: 'user', content: `benchmark prompt ${r + 3}` }], {
      maxNewTokens: TOKENS,
      onDelta: () => {},
    });
    const wall = performance.now() - t0;
    const tokens = Math.max(1, stats.newTokens);
    perRound.push({ loopMsPerToken: wall / tokens, runMsPerToken: runMs / Math.max(1, runs), ratio: wall / runMs });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const result = {
    bench: 'llm-loop-overhead',
    model: 'fixture LFM2 (tiny)',
    backend: 'onnxruntime-node cpu',
    tokensPerRound: TOKENS,
    rounds: ROUNDS,
    medianLoopMsPerToken: median(perRound.map((p) => p.loopMsPerToken)),
    medianRunMsPerToken: median(perRound.map((p) => p.runMsPerToken)),
    medianRatioLoopOverRun: median(perRound.map((p) => p.ratio)),
    perRound,
  };
  console.log(JSON.stringify(result, null, 2));
  await llm.dispose();
  await hub.close();
}

void main();
