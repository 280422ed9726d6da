// Diagnostic (not a test): hands-free on the WASM backend, optionally beside a CPU hog; pings the offscreen
// document every second and CPU-profiles its thread, to find what holds it.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { attachOffscreenDocument, TargetProxy } from '../cdp/offscreen-target';
import { startFixtureHub } from '../../tests/e2e/fixture-hub';
import { downloadModels, launchExtension, request, sendFromPage } from '../../tests/e2e/harness';
import { makeScriptWav } from '../../tests/fixtures/audio/make-wav';
import { ASR_BUNDLES, LLM_BUNDLE, TTS_BUNDLE, TURN_BUNDLE } from '../../models/registry';

const hog = process.argv.includes('--hog');
const seconds = Number(process.env.DIAG_S ?? 40);
const fixtures = await startFixtureHub();
const { wav } = makeScriptWav(
  'diag',
  [
    ['What time is it in Tokyo right now?', 2],
    ['And in Paris?', 20],
  ],
  1.5,
);
const session = await launchExtension({ extensionDir: fixtures.extensionDir, micWav: wav });
const panel = await session.openPage('sidepanel.html');
await panel.setViewportSize({ width: 420, height: 860 });
await downloadModels(panel, fixtures.hub.url, [LLM_BUNDLE.id, ASR_BUNDLES.moonshine.id, TURN_BUNDLE.id, TTS_BUNDLE.id]);
if (!process.argv.includes('--gpu'))
  await sendFromPage(panel, request('settings/set', 'background', { patch: { computeBackend: 'wasm' } }));

// --like-e2e: the spoken-turn e2e's set-up (long silence windows, the debug panel, a scripted reply slow to start).
if (process.argv.includes('--like-e2e')) {
  for (const path of ['engine.endpointCompleteMs', 'engine.endpointSilenceMs'])
    await sendFromPage(panel, request('tunables/set', 'background', { path, value: 4000 }));
  await sendFromPage(panel, request('settings/set', 'background', { patch: { debugPanel: true } }));
  const rules = [{ match: 'spoken aloud', reply: 'It is nine in the morning there.', firstTokenDelayMs: 4500 }];
  await sendFromPage(panel, request('debug/llm-script', 'offscreen', { rules }));
}
// DIAG_TUNABLES="lipsync.feedBehindFpsScale=1,…": live tunables for an A/B of one knob.
for (const kv of (process.env.DIAG_TUNABLES ?? '').split(',').filter(Boolean)) {
  const [path, value] = kv.split('=');
  await sendFromPage(panel, request('tunables/set', 'background', { path: path!, value: Number(value) }));
}
const cdp = await session.context.newCDPSession(panel);
const sessionId = await attachOffscreenDocument(cdp);
if (!sessionId) throw new Error('no offscreen document');
const proxy = new TargetProxy(cdp);
const send = (method: string, params: Record<string, unknown> = {}) => proxy.send(sessionId, method, params);
await send('Profiler.enable');
await send('Profiler.setSamplingInterval', { interval: 1000 });

const hogs = hog ? [spawn('sh', ['-c', 'yes > /dev/null'])] : [];
await panel.getByTestId('orb').click();
// --freeze-panel: the side panel stops running (no avatar frames, no layout): what is left is the document's own.
if (process.argv.includes('--freeze-panel')) {
  await new Promise((r) => setTimeout(r, 3000));
  await cdp.send('Page.setWebLifecycleState' as never, { state: 'frozen' } as never);
}
await send('Profiler.start');
const pings: number[] = [];
const t0 = Date.now();
while (Date.now() - t0 < seconds * 1000) {
  const s = Date.now();
  const r = await Promise.race([
    session.worker
      .evaluate((m) => chrome.runtime.sendMessage(m), request('offscreen/ping', 'offscreen'))
      .then(() => Date.now() - s),
    new Promise<number>((res) => setTimeout(() => res(-1), 15_000)),
  ]);
  pings.push(r);
  if (r < 0 || r > 1000) console.log(`t=${Math.round((Date.now() - t0) / 1000)} s ping ${r} ms`);
  await new Promise((res) => setTimeout(res, 1000));
}
const { profile } = (await send('Profiler.stop')) as {
  profile: {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number } }[];
    samples: number[];
    timeDeltas: number[];
  };
};
for (const h of hogs) h.kill();
console.log('ping ms:', JSON.stringify(pings));
const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<string, number>();
profile.samples.forEach((id, i) => {
  const f = byNode.get(id)!.callFrame;
  const key = `${f.functionName || '(anon)'} ${f.url.replace(/^.*\//, '')}:${f.lineNumber}:${f.columnNumber}`;
  self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
});
const total = [...self.values()].reduce((a, b) => a + b, 0);
console.log(`profile ${Math.round(total)} ms`);
for (const [k, ms] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${Math.round(ms)} ms  ${k}`);
writeFileSync('/tmp/offscreen.cpuprofile', JSON.stringify(profile));
await session.close();
await fixtures.close();
