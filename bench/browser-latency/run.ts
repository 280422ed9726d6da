/**
 * What the user hears, measured in the browser (docs/benchmarks.md, "What the user hears"): the built extension in
 * headless Chromium with the fixture models (WASM), a fake microphone that speaks scripted questions (mic-script.ts),
 * hands-free on, until `--turns` replies have been heard. Every turn's stamps come from the turn trace
 * (`debug/turn-trace`: the engine's marks, the offscreen document's TTS stamps and the side panel's stamps mapped onto
 * the offscreen clock by ping/pong), cut into the hops of core/trace/turn-hops.ts.
 *
 * Run (2 shared cores: take the e2e lock):
 *   flock /tmp/sidetalk-e2e.lock bash -c 'npm run build:test && npx jiti bench/browser-latency/run.ts --out bench/results/<date>-<machine>-browser-latency'
 * Options: --turns N (24), --llm scripted|fixture (scripted: a fixed two-sentence reply from the scripted model stand-in,
 * so every turn speaks and LLM compute is ~0; fixture: the fixture LLM through transformers.js), --minutes M (8),
 * --set section.key=value (repeatable; a tunable set through the background before the first turn, for A/B runs).
 * The side panel's long tasks (PerformanceObserver 'longtask') are reported with the hops: they are what a message
 * from the offscreen document waits behind.
 */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { writeFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { traceSchemas, type TurnTraceExport } from '../../core/protocol/trace';
import { waterfalls } from '../../core/trace/turn-hops';
import { ASR_BUNDLES, LLM_BUNDLE, TTS_BUNDLE, TURN_BUNDLE } from '../../models/registry';
import { startFixtureHub } from '../../tests/e2e/fixture-hub';
import { downloadModels, launchExtension, poll, request, sendFromPage } from '../../tests/e2e/harness';
import { makeMicScript, MIC_SCRIPT } from './mic-script';
import { longTaskSummary, markdown, summarise } from './report';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}
const TURNS = Number(arg('turns', '24'));
const LLM = arg('llm', 'scripted');
const MINUTES = Number(arg('minutes', '8'));
const OUT = arg('out', '');
const SETS = process.argv.flatMap((a, i) => (a === '--set' && process.argv[i + 1] ? [process.argv[i + 1]!] : []));
const REPLY = 'Sure, here is a short answer. And one more sentence right after it.';

async function trace(page: Page): Promise<TurnTraceExport> {
  const r = await sendFromPage<{ ok: boolean; data?: unknown; error?: unknown }>(page, request('debug/turn-trace', 'offscreen'));
  if (!r.ok) throw new Error(`debug/turn-trace: ${JSON.stringify(r.error)}`);
  return traceSchemas().TurnTraceExportSchema.parse(r.data);
}

const heardTurns = (t: TurnTraceExport) => new Set(t.stamps.filter((s) => s.name === 'panel-audible').map((s) => s.turnId)).size;

async function main(): Promise<void> {
  const mic = makeMicScript();
  const fixtures = await startFixtureHub();
  const session = await launchExtension({ extensionDir: fixtures.extensionDir, micWav: mic.wav });
  try {
    const panel = await session.openPage('sidepanel.html');
    await panel.setViewportSize({ width: 420, height: 860 });
    await downloadModels(panel, fixtures.hub.url, [LLM_BUNDLE.id, ASR_BUNDLES.moonshine.id, TURN_BUNDLE.id, TTS_BUNDLE.id]);
    // WASM as in the spoken e2e turn (SwiftShader's WebGPU is far slower than any real GPU); the debug panel turns the
    // panel's side of the trace on.
    await sendFromPage(panel, request('settings/set', 'background', { patch: { computeBackend: 'wasm', debugPanel: true } }));
    for (const set of SETS) {
      const [path, value] = set.split('=');
      const r = await sendFromPage<{ ok: boolean }>(panel, request('tunables/set', 'background', { path, value: Number(value) }));
      if (!r.ok) throw new Error(`--set ${set}: ${JSON.stringify(r)}`);
    }
    await panel.evaluate(() => {
      const w = window as unknown as { __longTasks: [number, number][] };
      w.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__longTasks.push([e.startTime, e.duration]);
      }).observe({ type: 'longtask', buffered: false });
    });
    if (LLM === 'scripted') {
      const rules = [{ match: 'Everything you write is spoken aloud', reply: REPLY }];
      await sendFromPage(panel, request('debug/llm-script', 'offscreen', { rules }));
    }
    await poll(
      () => panel.getByTestId('engine-state').getAttribute('data-ready'),
      (v) => v === 'yes',
      60_000,
    );
    const clocks = await poll(
      () => trace(panel),
      (t) => t.clocks.length > 0,
      30_000,
      250,
    );
    console.error(`panel clock: ${JSON.stringify(clocks.clocks)}; mic script ${mic.seconds.toFixed(1)} s, looped`);
    const startedAt = Date.now();
    await panel.getByTestId('orb').click();
    let last = -1;
    const final = await poll(
      async () => {
        const t = await trace(panel);
        const n = heardTurns(t);
        if (n !== last) console.error(`${((Date.now() - startedAt) / 1000).toFixed(0)} s: ${(last = n)} turns heard`);
        return t;
      },
      (t) => heardTurns(t) >= TURNS,
      MINUTES * 60_000,
      1000,
    ).catch(async (e: unknown) => {
      console.error(`stopped early: ${(e as Error).message.slice(0, 200)}`);
      return trace(panel);
    });
    await panel.getByTestId('orb').click();
    const longTasks = await panel.evaluate(() => (window as unknown as { __longTasks: [number, number][] }).__longTasks);
    const turns = waterfalls(final.stamps);
    const summary = { ...summarise(turns), panelLongTasks: longTaskSummary(longTasks, Date.now() - startedAt) };
    const marks = final.stamps.filter((s) => s.context === 'offscreen');
    const meta = {
      date: new Date().toISOString().slice(0, 10),
      machine: `${cpus().length} × ${cpus()[0]?.model ?? '?'} (shared)`,
      chromium:
        session.context.browser()?.version() ??
        execFileSync(process.env.SIDETALK_CHROMIUM ?? '/usr/bin/chromium', ['--version'])
          .toString()
          .trim(),
      models: `fixture bundles, WASM; LLM ${LLM === 'scripted' ? `scripted stand-in ("${REPLY}")` : 'fixture LFM2 via transformers.js'}`,
      mic: `${MIC_SCRIPT.length} espeak-ng questions with 2–6 s gaps, ${mic.seconds.toFixed(1)} s, looped`,
      turnsHeard: turns.length,
      interrupted: new Set(marks.filter((s) => s.name === 'interrupted').map((s) => s.turnId)).size,
      panelClock: final.clocks,
      wallSeconds: Math.round((Date.now() - startedAt) / 1000),
      command: `npx jiti bench/browser-latency/run.ts --turns ${TURNS} --llm ${LLM}${SETS.map((s) => ` --set ${s}`).join('')}`,
    };
    const md = markdown(summary, meta);
    console.log(JSON.stringify({ meta, ...summary }, null, 2));
    console.log(md);
    if (OUT) {
      writeFileSync(`${OUT}.json`, `${JSON.stringify({ meta, ...summary, turns, trace: final }, null, 1)}\n`);
      writeFileSync(`${OUT}.md`, md);
    }
    if (session.errors.length) console.error(`console errors:\n${session.errors.slice(0, 10).join('\n')}`);
  } finally {
    await session.close();
    await fixtures.close();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
