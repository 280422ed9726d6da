/**
 * What one microphone frame costs the offscreen document's thread: the processed track's Silero VAD, the unprocessed
 * track's (it runs only over a reply), and the engine's `onFrame` (endpointing, the echo path, the barge gates and
 * the reply-audio match), timed frame by frame on this machine's wall clock while the engine scenarios run (the same
 * real-audio scenarios as bench/engine/scenarios.ts, with the unprocessed track on as the product has it). The
 * simulated clock drives the engine; only the compute is timed. Node's V8, one core: the in-browser share is this
 * plus what the browser adds (the worklet's message, the feed-lag watch).
 *
 *   npx jiti bench/engine/frame-cost.ts [--rounds 3] [--out bench/results/<name>]
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { loadSilero, runScenario, type FrameCost } from '../../tests/fixtures/audio/conversation-sim';
import { scenarios } from './scenarios';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
};
const ROUNDS = Number(arg('rounds', '3'));
const OUT = arg('out', '');
const FRAME_MS = 32;

function quantiles(xs: number[]): { n: number; mean: number; p50: number; p90: number; p99: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  const mean = s.reduce((a, b) => a + b, 0) / Math.max(1, s.length);
  return { n: s.length, mean: r3(mean), p50: r3(q(0.5)), p90: r3(q(0.9)), p99: r3(q(0.99)), max: r3(s.at(-1) ?? 0) };
}

async function main(): Promise<void> {
  const load0 = loadavg()[0]!;
  const vad = await loadSilero();
  const rawVad = await loadSilero();
  const costs: FrameCost[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const input of Object.values(scenarios())) {
      const frameCost: FrameCost[] = [];
      await runScenario(vad, { ...input, unprocessed: { echoGain: 3 * (input.echoGain ?? 0.2), vad: rawVad }, frameCost });
      if (round > 0) costs.push(...frameCost); // the first round warms the JIT
    }
  }
  const part = (pick: (c: FrameCost) => number, over: FrameCost[]) => quantiles(over.map(pick));
  const total = (c: FrameCost) => c.vadMs + c.rawVadMs + c.engineMs;
  const rows = (['listening', 'playing'] as const).map((phase) => {
    const over = costs.filter((c) => c.playing === (phase === 'playing'));
    return {
      phase,
      vad: part((c) => c.vadMs, over),
      rawVad: part((c) => c.rawVadMs, over),
      engine: part((c) => c.engineMs, over),
      total: part(total, over),
    };
  });
  const all = quantiles(costs.map(total));
  const result = {
    bench: 'engine-frame-cost',
    runtime: `Node ${process.version}, one thread, wall clock; engine on the simulated clock`,
    rounds: ROUNDS,
    /** The machine's 1-minute load average before and after: on a shared box, preemption inflates the tails. */
    loadAverage: [load0, loadavg()[0]!].map((x) => Math.round(x * 100) / 100),
    frames: costs.length,
    shareOfOneCorePercent: Math.round((all.mean / FRAME_MS) * 1000) / 10,
    all,
    rows,
  };
  console.log(JSON.stringify(result));
  const lines = [
    `# Per-frame work of the offscreen feed (Node ${process.version}, wall clock, ${costs.length} frames)`,
    '',
    '| phase | part | mean ms | p50 | p90 | p99 | max |',
    '|---|---|---|---|---|---|---|',
    ...rows.flatMap((r) =>
      (['vad', 'rawVad', 'engine', 'total'] as const).map(
        (k) => `| ${r.phase} | ${k} | ${r[k].mean} | ${r[k].p50} | ${r[k].p90} | ${r[k].p99} | ${r[k].max} |`,
      ),
    ),
    '',
    `Mean over all frames ${all.mean} ms of a ${FRAME_MS} ms frame: ${result.shareOfOneCorePercent} % of one core (load average ${result.loadAverage.join(' → ')}).`,
  ];
  console.log(`\n${lines.join('\n')}`);
  if (OUT) {
    writeFileSync(`${OUT}.json`, `${JSON.stringify(result, null, 2)}\n`);
    writeFileSync(`${OUT}.md`, `${lines.join('\n')}\n`);
  }
}

void main();
