/**
 * Memory budget of the built extension in headless Chromium with the fixture models (tiny graphs; real runtimes):
 * JS heap of each context (side panel, offscreen document and its model workers, via CDP after a forced GC) and the
 * resident memory of Chromium's processes (Linux /proc), sampled
 *   1. with the side panel open and nothing loaded,
 *   2. after loading the default models (the first turn loads ASR + LLM + TTS),
 *   3. after N more typed turns (deterministic arithmetic/time questions).
 * Prints JSON and a markdown table (also written to bench/memory/out/memory.json and memory.md).
 *
 * Run:  npm run build:test && npx jiti bench/memory/run.ts [turns=50]
 *
 * RSS is summed per process kind and counts shared pages once per process (an upper bound).
 * Caveat: fixture weights are kilobytes, so these numbers are the runtime's own footprint (ORT/transformers.js, the
 * engine, the avatar), not a real model's weights. Under SwiftShader "GPU memory" is CPU memory of the GPU process,
 * reported as that process's RSS.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { attachOffscreenDocument, TargetProxy } from '../cdp/offscreen-target';
import type { Reply } from '../../core/protocol';
import { ASR_BUNDLES, LLM_BUNDLE, TTS_BUNDLE } from '../../models/registry';
import { startFixtureHub } from '../../tests/e2e/fixture-hub';
import { downloadModels, launchExtension, poll, sendFromPage } from '../../tests/e2e/harness';

/** 'worker chrome-extension://…/assets/speech.worker-C5MszJ_f.js' → 'speech.worker'. */
const workerName = (url: string) => url.replace(/^.*\//, '').replace(/-[A-Za-z0-9_-]{8}\.js$|\.js$/, '');
const OUT_DIR = 'bench/memory/out';
const TURNS = Number(process.argv[2] ?? process.env.MEMORY_TURNS ?? 50);
const MB = 1024 * 1024;
const request = (type: string, target: string, payload: unknown = {}) => ({ kind: 'request', type, target, payload });
type Mark = { name: string; turnId: string };

/** Resident memory of the Chromium this script launched (its child process and all descendants), by process kind. */
function chromiumRss(): Record<string, number> {
  const parent = new Map<number, number>();
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces, so split after the last ')'.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      parent.set(Number(pid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited
    }
  }
  const ours = new Set<number>([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parent) {
      if (!ours.has(pid) && ours.has(ppid)) {
        ours.add(pid);
        grew = true;
      }
    }
  }
  ours.delete(process.pid);
  const out: Record<string, number> = {};
  for (const pid of ours) {
    try {
      // Chromium rewrites its children's process titles into one space-separated string.
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
      if (!cmd[0]?.includes('chrom')) continue;
      const type = cmd.find((a) => a.startsWith('--type='))?.slice(7) ?? 'browser';
      const kind = type === 'renderer' && cmd.includes('--extension-process') ? 'extension-renderer' : type;
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      if (rss) out[kind] = (out[kind] ?? 0) + Number(rss) * 1024;
    } catch {
      // exited
    }
  }
  return out;
}

async function main(): Promise<void> {
  const fixtures = await startFixtureHub();
  const session = await launchExtension({ extensionDir: fixtures.extensionDir });
  const panel: Page = await session.openPage('sidepanel.html');
  await panel.setViewportSize({ width: 420, height: 860 });
  await downloadModels(panel, fixtures.hub.url, [LLM_BUNDLE.id, ASR_BUNDLES.moonshine.id, TTS_BUNDLE.id]);

  const cdp = await session.context.newCDPSession(panel);
  await cdp.send('Performance.enable');
  const proxy = new TargetProxy(cdp);
  const marks = () =>
    sendFromPage<Reply<Mark[]> | undefined>(panel, request('conversation/marks', 'offscreen')).then((r) => (r?.ok ? r.data : []));

  /** Attaches to the offscreen document and (auto-attach) its workers; returns the document's session id. */
  async function attachOffscreen(): Promise<string | null> {
    const sessionId = await attachOffscreenDocument(cdp);
    if (sessionId)
      await proxy.send(sessionId, 'Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
    return sessionId;
  }
  let offscreen = await attachOffscreen();

  const heapOf = async (path: string): Promise<number | null> => {
    await proxy.send(path, 'HeapProfiler.collectGarbage');
    const usage = (await proxy.send(path, 'Runtime.getHeapUsage')) as { usedSize: number } | null;
    return usage ? usage.usedSize : null;
  };

  async function sample(label: string) {
    await cdp.send('HeapProfiler.collectGarbage');
    const { usedSize } = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
    if (!offscreen) offscreen = await attachOffscreen();
    const offscreenHeap = offscreen ? await heapOf(offscreen) : null;
    const workers: Record<string, number | null> = {};
    for (const [path, url] of proxy.workers) if (path.startsWith(`${offscreen}/`)) workers[workerName(url)] = await heapOf(path);
    const rss = chromiumRss();
    // GPU buffers alive on the model worker's device (the one the models run on), from its buffer ledger.
    const gpu = await sendFromPage<Reply<{ backend: string; buffers: number; bytes: number }> | undefined>(
      panel,
      request('debug/gpu-stats', 'offscreen'),
    );
    return {
      label,
      // The side panel and the offscreen document are extension pages in one renderer: they share a main thread and
      // its V8 isolate, so these two read the same heap (ARCHITECTURE.md: why models run in workers).
      sidePanelJsHeapMB: +(usedSize / MB).toFixed(2),
      offscreenJsHeapMB: offscreenHeap === null ? null : +(offscreenHeap / MB).toFixed(2),
      workerJsHeapMB: Object.fromEntries(Object.entries(workers).map(([k, v]) => [k, v === null ? null : +(v / MB).toFixed(2)])),
      rssMB: Object.fromEntries(Object.entries(rss).map(([k, v]) => [k, +(v / MB).toFixed(1)])),
      gpu: gpu?.ok ? { backend: gpu.data.backend, buffers: gpu.data.buffers, MB: +(gpu.data.bytes / MB).toFixed(2) } : null,
    };
  }

  async function turn(i: number, first = false): Promise<void> {
    const q =
      i % 5 === 4
        ? { text: 'what time is it', ok: /\d[:.]\d{2}|o'clock/i }
        : i % 5 === 2
          ? { text: `tell me something about the sea, part ${i}`, ok: /\w{3,}.*\w{3,}/ } // the LLM itself
          : {
              text: `what is ${3 + (i % 17)} times ${2 + ((i * 7) % 13)}`,
              ok: new RegExp(`\\b${(3 + (i % 17)) * (2 + ((i * 7) % 13))}\\b`),
            };
    const before = await panel.locator('.line.assistant').count();
    const earlier = new Set((await marks()).map((m) => m.turnId));
    await panel.getByTestId('composer').fill(q.text);
    await panel.getByRole('button', { name: 'Send' }).click();
    await poll(
      async () => (await panel.locator('.line.assistant').allInnerTexts()).slice(before).join(' '),
      (t) => q.ok.test(t),
      first ? 240_000 : 60_000,
      50,
    );
    await poll(marks, (m) => m.some((x) => !earlier.has(x.turnId) && x.name === 'done'), 60_000, 50);
  }

  const samples = [await sample('side panel open, models downloaded, nothing loaded')];
  const t0 = Date.now();
  await turn(0, true);
  samples.push(await sample('default models loaded (after the first turn)'));
  for (let i = 1; i <= TURNS; i++) await turn(i);
  samples.push(await sample(`after ${TURNS} more turns`));
  const result = {
    bench: 'memory (built extension, fixture models, headless Chromium + SwiftShader)',
    turns: TURNS,
    wallSeconds: Math.round((Date.now() - t0) / 1000),
    errors: session.errors,
    samples,
  };
  await session.close();
  await fixtures.close();

  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(join(OUT_DIR, 'memory.json'), JSON.stringify(result, null, 2));
  const kinds = [...new Set(samples.flatMap((s) => Object.keys(s.rssMB)))].sort();
  const workerKeys = [...new Set(samples.flatMap((s) => Object.keys(s.workerJsHeapMB)))].sort();
  const md = [
    `| sample | panel heap MB | offscreen heap MB | ${workerKeys.map((w) => `${w} heap MB`).join(' | ')} | GPU buffers (MB) | ${kinds.map((k) => `${k} RSS MB`).join(' | ')} |`,
    `|${'---|'.repeat(4 + workerKeys.length + kinds.length)}`,
    ...samples.map(
      (s) =>
        `| ${s.label} | ${s.sidePanelJsHeapMB} | ${s.offscreenJsHeapMB ?? 'n/a'} | ${workerKeys.map((w) => s.workerJsHeapMB[w] ?? 'n/a').join(' | ')} | ${s.gpu ? `${s.gpu.buffers} (${s.gpu.MB}) ${s.gpu.backend}` : 'n/a'} | ${kinds.map((k) => s.rssMB[k] ?? 0).join(' | ')} |`,
    ),
  ].join('\n');
  writeFileSync(join(OUT_DIR, 'memory.md'), `${md}\n`);
  console.log(JSON.stringify(result, null, 2));
  console.log(md);
}

await main();
