/**
 * The side panel's avatar in the built extension: a fixture utterance (espeak-ng speech at 24 kHz, sent as 80 ms
 * frames the way the offscreen document sends Pocket TTS audio) plays once through TalkingHead, the rendered mouth
 * moves while it plays and rests after, and an interrupt silences audio and mouth within one avatar frame.
 * Measured with the avatar's frame probe (components/avatar/avatar-probe.ts) and a recorder of every Web Audio edge.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { AvatarProbeSnapshot } from '../../components/avatar/avatar-probe';
import { resample } from '../../core/tts/wav';
import { SAMPLE_RATE, silence, speech } from '../fixtures/audio/make-audio';
import { installAudioGraphRecorder, type AudioRoutes } from './avatar-audio-graph';
import { ARTIFACTS_DIR, launchExtension, poll, request, screenshotColours, sendFromPage, type ExtensionSession } from './harness';
import { playUtterance, probeSnapshot, startProbe } from './avatar-driver';

let session: ExtensionSession;
let panel: Page;

const SENTENCE = 'Maybe bring a jacket: it will be about twelve degrees and windy in Berlin tomorrow.';
let utterance: number[];

beforeAll(async () => {
  const pcm16k = new Float32Array([...silence(150), ...speech(SENTENCE, { wordsPerMinute: 160 }), ...silence(150)]);
  utterance = Array.from(resample(pcm16k, SAMPLE_RATE, 24000));
  session = await launchExtension();
  await session.context.addInitScript(installAudioGraphRecorder);
  panel = await session.openPage('sidepanel.html');
  await panel.setViewportSize({ width: 420, height: 860 });
  await poll(
    () => panel.locator('.sidetalk-avatar').getAttribute('data-status'),
    (s) => s === 'ready',
    90_000,
    250,
  );
  await poll(
    () => panel.getByTestId('engine-state').getAttribute('data-ready'),
    (s) => s === 'yes',
  );
});

/** Frames the avatar draws per second while it idles, from its probe. */
async function idleFps(): Promise<number> {
  await startProbe(panel);
  await panel.waitForTimeout(3000);
  const frames = (await probeSnapshot(panel)).frames;
  return frames.length < 2 ? 0 : ((frames.length - 1) * 1000) / (frames[frames.length - 1]!.at - frames[0]!.at);
}

/** A live tunable, set the way the debug panel sets it. */
async function setTunable(path: string, value: number): Promise<void> {
  await sendFromPage(panel, request('settings/set', 'background', { patch: { debugPanel: true } }));
  const r = await sendFromPage<{ ok: boolean }>(panel, request('tunables/set', 'background', { path, value }));
  if (!r.ok) throw new Error(`tunables/set ${path}=${value}: ${JSON.stringify(r)}`);
}

afterAll(async () => {
  await session?.close();
});

function writeArtifact(name: string, data: unknown): void {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  writeFileSync(join(ARTIFACTS_DIR, name), JSON.stringify(data));
}

const routes = () =>
  panel.evaluate(() => (globalThis as unknown as { __sidetalkAudioRoutes: () => AudioRoutes }).__sidetalkAudioRoutes());
/** Records the playback channel's messages from now on, with one listener (a second would record each twice). */
const recordPlayback = () =>
  panel.evaluate(() => {
    const g = globalThis as unknown as { __playback: unknown[]; __playbackIn?: BroadcastChannel };
    g.__playback = [];
    g.__playbackIn?.close();
    g.__playbackIn = new BroadcastChannel('sidetalk-playback');
    g.__playbackIn.onmessage = (e) => g.__playback.push(e.data);
  });
const AUDIBLE = 0.01;
/** A message on the audio channel, as the offscreen document sends it. */
const post = (message: object) => panel.evaluate((m) => new BroadcastChannel('sidetalk-audio').postMessage(m), message);
/** Waits until the probe has seen more than `n` audible frames since it was started. */
const audibleFrames = (n: number) =>
  poll(
    () => probeSnapshot(panel),
    (s) => s.frames.filter((f) => f.audible > AUDIBLE).length > n,
    20_000,
    100,
  );
const REST = 0.02;

function during(snap: AvatarProbeSnapshot) {
  const frames = snap.frames;
  const firstAudible = frames.findIndex((f) => f.audible > AUDIBLE);
  let lastAudible = -1;
  frames.forEach((f, i) => (f.audible > AUDIBLE ? (lastAudible = i) : undefined));
  return { frames, firstAudible, lastAudible };
}

describe('avatar playback in the side panel (built extension, software WebGL)', () => {
  it('on this software renderer the idle avatar draws a few frames a second, at the full scale many more', async () => {
    // SwiftShader: lipsync.softwareFpsScale 0.2 makes the idle rate 2 fps (docs/avatar.md, "On a software renderer").
    const reduced = await idleFps();
    expect(reduced).toBeGreaterThan(0.5);
    expect(reduced).toBeLessThan(3.5);
    // The lip-sync checks below watch the mouth frame by frame: they run at the rates of a hardware GPU.
    await setTunable('lipsync.softwareFpsScale', 1);
    await panel.evaluate(() => new Promise((r) => setTimeout(r, 300)));
    expect(await idleFps()).toBeGreaterThan(reduced * 1.5);
  });

  it('plays a fixture utterance once, through one route to the speakers, with the mouth moving and then resting', async () => {
    expect(await screenshotColours(panel, 'avatar-idle')).toBeGreaterThan(50);
    await startProbe(panel);
    // Before the first reply, the playback context already runs at the voice's rate with its worklet loaded: the
    // first chunk does not race TalkingHead's 5 s worklet timeout (components/avatar/stream-start.ts).
    expect((await probeSnapshot(panel)).stream).toEqual({ sampleRate: 24000, workletLoaded: true });
    const played = playUtterance(panel, utterance, SENTENCE, '7001');
    await poll(
      () => probeSnapshot(panel),
      (s) => s.frames.some((f) => f.audible > AUDIBLE),
      20_000,
      100,
    );
    await panel.waitForTimeout(1200);
    expect(await screenshotColours(panel, 'avatar-speaking')).toBeGreaterThan(50);
    await played;
    const audioMs = (utterance.length / 24000) * 1000;
    // Wait until the audio has drained and the stream ended (the avatar stops counting itself as speaking).
    const snap = await poll(
      () => probeSnapshot(panel),
      (s) => {
        const last = s.frames.at(-1);
        const lastLoud = [...s.frames].reverse().find((f) => f.audible > AUDIBLE);
        return !!last && !!lastLoud && !last.speaking && last.at - lastLoud.at > 700;
      },
      audioMs + 20_000,
      200,
    );

    writeArtifact('avatar-probe-utterance.json', snap);
    // One playback worklet, and exactly one route from it to the destination (the stock graph has two: +6 dB echo).
    const r = await routes();
    expect(r.worklets).toBe(1);
    expect(r.routes).toEqual([1]);

    const { frames, firstAudible, lastAudible } = during(snap);
    const loud = frames.slice(firstAudible, lastAudible + 1).filter((f) => f.audible > AUDIBLE);
    expect(loud.length).toBeGreaterThan(20);
    // The whole utterance was heard (not cut short). It can take longer than the audio when chunk delivery on a
    // loaded machine falls behind real time: the worklet then waits in silence, and the lips wait with it.
    const heardMs = frames[lastAudible]!.at - frames[firstAudible]!.at;
    expect(heardMs).toBeGreaterThan(audioMs * 0.75);
    // The mouth is open for most loud frames and changes shape many times over the sentence.
    const open = loud.filter((f) => f.mouth > 0.08).length;
    expect(open / loud.length).toBeGreaterThan(0.6);
    const distinct = new Set(loud.map((f) => f.mouth.toFixed(2))).size;
    expect(distinct).toBeGreaterThan(10);
    // After the voice stops, the mouth rests (a shape eases out over about its own length, ≤ ~300 ms).
    const after = frames.filter((f) => f.at > frames[lastAudible]!.at + 600);
    expect(after.length).toBeGreaterThan(3);
    for (const f of after) expect(f.mouth).toBeLessThan(REST);
    // Before the voice starts, the mouth rests too (TalkingHead eases into a shape up to ~2/3 of its length early).
    for (const f of frames.filter((x) => x.at < frames[firstAudible]!.at - 300)) expect(f.mouth).toBeLessThan(REST);
  });

  it('an interrupt silences the audio and closes the mouth within one avatar frame, and reports it to the engine', async () => {
    await startProbe(panel);
    await recordPlayback();
    const played = playUtterance(panel, utterance, SENTENCE, '7002');
    await poll(
      () => probeSnapshot(panel),
      (s) => s.frames.filter((f) => f.audible > AUDIBLE).length > 25,
      20_000,
      100,
    );
    const sentBefore = await panel.evaluate(() => performance.now());
    await panel.evaluate(() => new BroadcastChannel('sidetalk-audio').postMessage({ kind: 'stop', turnId: '7002' }));
    // The rest of the turn's chunks keep arriving after the stop; the panel must drop them.
    await played;
    const sentAfter = await panel.evaluate(() => performance.now());
    expect(sentAfter - sentBefore).toBeGreaterThan(300);
    const snap = await poll(
      () => probeSnapshot(panel),
      (s) =>
        s.events.some((e) => e.name === 'interrupt') &&
        s.frames.filter((f) => f.at > s.events.find((e) => e.name === 'interrupt')!.at).length > 12,
      10_000,
      100,
    );
    writeArtifact('avatar-probe-interrupt.json', snap);
    const at = snap.events.find((e) => e.name === 'interrupt')!.at;
    const before = snap.frames.filter((f) => f.at < at).slice(-6);
    expect(before.some((f) => f.mouth > 0.08 && f.audible > AUDIBLE)).toBe(true);
    const next = snap.frames.filter((f) => f.at > at);
    const frameMs = Math.max(
      ...snap.frames
        .slice(1)
        .map((f, i) => f.at - snap.frames[i]!.at)
        .slice(-20, -1),
      1000 / 30,
    );
    // The mouth (main-thread state) is shut on the very first frame drawn after the interrupt.
    expect(next[0]!.mouth).toBeLessThan(REST);
    // Audio stops on the audio thread: silent on every frame from one frame interval after the interrupt.
    for (const f of next.filter((x) => x.at >= at + frameMs)) {
      expect(f.audible).toBeLessThan(1e-3);
      expect(f.mouth).toBeLessThan(REST);
    }
    // Later chunks of the interrupted turn are dropped, and the engine heard an interrupted end.
    const events = await poll(
      () =>
        panel.evaluate(
          () =>
            (globalThis as unknown as { __playback: Array<{ type: string; interrupted?: boolean; turnId?: string }> }).__playback,
        ),
      (ev) => ev.some((e) => e.type === 'ended'),
    );
    // It says how much of the turn played (checked against the clock in the next test): some of it, not all. Chunk
    // delivery here falls behind real time on a loaded machine, and the worklet's silent waits are not played audio.
    const ended = events.find((e) => e.type === 'ended') as { playedMs?: number };
    expect(ended).toMatchObject({ turnId: '7002', interrupted: true, playedMs: expect.any(Number) });
    expect(ended.playedMs!).toBeGreaterThan(0);
    expect(ended.playedMs!).toBeLessThan((utterance.length / 24000) * 1000);
    expect((await routes()).routes).toEqual([1]);
    expect(session.errors.filter((e) => !/favicon|ERR_FILE_NOT_FOUND/.test(e))).toEqual([]);
  });

  it('speech over the reply holds it where it is, and a release goes on from there: nothing skipped, nothing ends early', async () => {
    await startProbe(panel);
    await recordPlayback();
    const played = playUtterance(panel, utterance, SENTENCE, '7003');
    await audibleFrames(10);
    // Another turn's hold is not this reply's business.
    const foreignSentAt = await panel.evaluate(() => performance.now());
    await post({ kind: 'pause', turnId: '9999', paused: true });
    await panel.waitForTimeout(400);
    await post({ kind: 'pause', turnId: '7003', paused: true });
    const held = await poll(
      () => probeSnapshot(panel),
      (s) => s.events.some((e) => e.name === 'hold'),
      5_000,
      50,
    );
    const heldAt = held.events.find((e) => e.name === 'hold')!.at;
    await panel.waitForTimeout(800); // the length of a short backchannel's decision
    await post({ kind: 'pause', turnId: '7003', paused: false });
    await played;
    const snap = await poll(
      () => probeSnapshot(panel),
      (s) => s.events.some((e) => e.name === 'release') && s.events.some((e) => e.name === 'ended'),
      20_000,
      200,
    );
    writeArtifact('avatar-probe-hold.json', snap);
    const releasedAt = snap.events.find((e) => e.name === 'release')!.at;
    const playback = await panel.evaluate(
      () =>
        (
          globalThis as unknown as {
            __playback: Array<{ type: string; interrupted?: boolean; turnId?: string; rms?: number; playedMs?: number }>;
          }
        ).__playback,
    );
    // The foreign hold changed nothing: the audio clock ran on and the reply stayed audible.
    const afterForeign = snap.frames.filter((f) => f.at > foreignSentAt + 50 && f.at < heldAt);
    expect(afterForeign.length).toBeGreaterThan(1);
    expect(afterForeign.at(-1)!.audioMs - afterForeign[0]!.audioMs).toBeGreaterThan(100);
    // Held: the audio clock stands still (nothing rendered, so nothing skipped) and the mouth rests.
    const whileHeld = snap.frames.filter((f) => f.at > heldAt + 100 && f.at < releasedAt);
    expect(whileHeld.length).toBeGreaterThan(1);
    expect(whileHeld.at(-1)!.audioMs - whileHeld[0]!.audioMs).toBeLessThan(30);
    for (const f of whileHeld) expect(f.mouth).toBeLessThan(REST);
    // It stood still only once its fade had been rendered: a context at 24 kHz leaves the last milliseconds it
    // rendered in Chrome's output path, and they play when it runs again (docs/echo.md, "Holding the reply").
    for (const f of whileHeld) expect(f.gain).toBeLessThan(1e-3);
    // Released: it goes on, with the lips.
    const after = snap.frames.filter((f) => f.at > releasedAt + 100);
    expect(after.some((f) => f.audible > AUDIBLE && f.mouth > 0.08)).toBe(true);
    expect(snap.events.some((e) => e.name === 'interrupt')).toBe(false);
    // (More than one end when chunk delivery on a loaded machine falls behind and the stream drains between chunks.)
    const ends = playback.filter((e) => e.type === 'ended');
    expect(ends.length).toBeGreaterThan(0);
    expect(ends.every((e) => e.turnId === '7003' && e.interrupted === false)).toBe(true);
    // Every sample was played: what the runs rendered adds up to the utterance (a muted stretch would add up too, but
    // the clock above would have run through it).
    const playedMs = ends.reduce((sum, e) => sum + (e.playedMs ?? 0), 0);
    expect(Math.abs(playedMs - (utterance.length / 24000) * 1000)).toBeLessThan(100);
  });

  it('a reply cut while held stays silent, and the next reply plays at full volume', async () => {
    await startProbe(panel);
    const played = playUtterance(panel, utterance, SENTENCE, '7005');
    await audibleFrames(10);
    await post({ kind: 'pause', turnId: '7005', paused: true });
    await panel.waitForTimeout(500);
    await post({ kind: 'stop', turnId: '7005' });
    await played;
    const cut = await poll(
      () => probeSnapshot(panel),
      (s) =>
        s.events.some((e) => e.name === 'interrupt') &&
        s.frames.some((f) => f.at > s.events.find((e) => e.name === 'interrupt')!.at + 600),
      10_000,
      100,
    );
    const cutAt = cut.events.find((e) => e.name === 'interrupt')!.at;
    // Faded out before the context stood still, so what it left in the output path, played at the cut, is silence.
    const holdAt = cut.events.find((e) => e.name === 'hold')!.at;
    const held = cut.frames.filter((f) => f.at > holdAt + 100 && f.at < cutAt);
    expect(held.length).toBeGreaterThan(0);
    for (const f of held) expect(f.gain).toBeLessThan(1e-3);
    const afterCut = cut.frames.filter((f) => f.at > cutAt + 100);
    for (const f of afterCut) expect(f.audible).toBeLessThan(1e-3);
    // The context runs again (the next reply needs it) ...
    expect(afterCut.at(-1)!.audioMs - afterCut[0]!.audioMs).toBeGreaterThan(100);
    // ... and the next reply is heard at full volume.
    await startProbe(panel);
    await playUtterance(panel, utterance.slice(0, 24000 * 2), SENTENCE, '7006');
    const next = await poll(
      () => probeSnapshot(panel),
      (s) => s.events.some((e) => e.name === 'ended'),
      20_000,
      100,
    );
    const heard = next.frames.filter((f) => f.audible > AUDIBLE);
    expect(heard.length).toBeGreaterThan(5);
    expect(heard.every((f) => f.gain > 0.95)).toBe(true);
  });

  it('a hold that comes after the reply drained holds nothing: the next reply plays at once', async () => {
    await startProbe(panel);
    await recordPlayback();
    type Ended = { type: string; turnId?: string; interrupted?: boolean; playedMs?: number };
    const ended = (turnId: string) =>
      poll(
        () => panel.evaluate(() => (globalThis as unknown as { __playback: Ended[] }).__playback),
        (events) => events.some((e) => e.type === 'ended' && e.turnId === turnId),
        20_000,
        100,
      );
    await playUtterance(panel, utterance.slice(0, 24000), SENTENCE, '7007');
    await ended('7007');
    // The engine heard speech just as the reply drained: its word reaches a player with nothing left to hold.
    await post({ kind: 'pause', turnId: '7007', paused: true });
    await panel.waitForTimeout(200);
    await playUtterance(panel, utterance.slice(0, 24000 * 2), SENTENCE, '7008');
    const events = await ended('7008');
    const snap = await probeSnapshot(panel);
    expect(snap.events.some((e) => e.name === 'hold')).toBe(false);
    const next = events.filter((e) => e.type === 'ended' && e.turnId === '7008');
    expect(next.every((e) => e.interrupted === false)).toBe(true);
    expect(snap.frames.some((f) => f.audible > AUDIBLE)).toBe(true);
  });

  it('the interrupted end says how much of the turn played: the time from the worklet’s start to the stop', async () => {
    // Not a lip-sync check: the product's own software-renderer rate, so the page's thread takes the stop when it is
    // posted (at the full rate a SwiftShader frame held it for seconds, and the stop landed after the utterance).
    await setTunable('lipsync.softwareFpsScale', 0.2);
    await startProbe(panel);
    await recordPlayback();
    // Every chunk is queued at once, long before it plays: no underrun, so the played audio is the elapsed time.
    await playUtterance(panel, utterance, SENTENCE, '7004', 100);
    // The stop lands inside the 5.2 s utterance by the clock, 2 s after the player said it started, not after a number
    // of avatar frames: on a slow software renderer 25 audible frames took longer than the utterance, the stop came
    // after it had played out, and the played time (all of it) was compared with a span that included the silence.
    await poll(
      () =>
        panel.evaluate(() =>
          (globalThis as unknown as { __playback: { type: string; turnId?: string }[] }).__playback.some(
            (e) => e.type === 'started' && e.turnId === '7004',
          ),
        ),
      (started) => started,
      20_000,
      50,
    );
    await panel.waitForTimeout(2_000);
    await panel.evaluate(() => new BroadcastChannel('sidetalk-audio').postMessage({ kind: 'stop', turnId: '7004' }));
    type Ended = { type: string; turnId?: string; interrupted?: boolean; playedMs?: number };
    const ended = await poll(
      () => panel.evaluate(() => (globalThis as unknown as { __playback: Ended[] }).__playback.find((e) => e.type === 'ended')),
      (e) => e !== undefined,
    );
    const snap = await probeSnapshot(panel);
    const interrupt = snap.events.find((e) => e.name === 'interrupt')!;
    const started = snap.events.filter((e) => e.name === 'started' && e.at < interrupt.at).at(-1)!;
    const span = interrupt.at - started.at;
    // Both clocks are printed, for the day this fails: the played time is counted on the audio clock.
    console.log(
      `[heard] played ${ended!.playedMs} ms of ${Math.round(utterance.length / 24)}; worklet started → interrupt` +
        ` ${Math.round(span)} ms page clock, ${Math.round(interrupt.audioMs! - started.audioMs!)} ms audio clock`,
    );
    expect(ended).toMatchObject({ turnId: '7004', interrupted: true, playedMs: expect.any(Number) });
    // The played audio is the time from the worklet's start to the stop. The 'started' mark arrives after the start
    // (the worklet's message waits for the page's main thread), so the played time may exceed the marks' span by that
    // trip. On loaded machines it also fell short, by 176 ms here and 331 ms in CI (cause not located); 400 ms is
    // about a word, the resolution of what the history keeps. Counting what was queued instead (seconds over), or
    // nothing (the whole span under), stays far outside.
    const overMs = ended!.playedMs! - span;
    expect(overMs).toBeGreaterThan(-400);
    expect(overMs).toBeLessThan(250);
  });
});
