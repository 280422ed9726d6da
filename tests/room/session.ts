/**
 * The built extension in the acoustic loop (rig.ts): fixture models (the TTS decoder says real words, speech.ts), the
 * scripted model stand-in answering every turn with a reply long enough to talk over, hands-free on, the microphone in
 * the offscreen document and playback in the side panel page, both through PulseAudio. One reply at a time:
 * `reply()` sends a typed question and follows the reply it gets, with or without the user talking over it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ASR_BUNDLES, LLM_BUNDLE, TTS_BUNDLE, TURN_BUNDLE } from '../../models/registry';
import { startFixtureHub, type FixtureHub } from '../e2e/fixture-hub';
import {
  ARTIFACTS_DIR,
  downloadModels,
  engineMarks,
  launchExtension,
  poll,
  request,
  sendFromPage,
  type EngineMark,
  type ExtensionSession,
} from '../e2e/harness';
import { RIG_RATE, startRig, type Acoustics, type Recording, type Rig } from './rig';
import { assistantSpeech, phraseStart, USER_LEAD_S } from './speech';
import { backchannelOutcome, replyLevels, silentReplyMarks } from './turns';
import type { ReplyResult, Say } from './results';

export type { ReplyOptions } from './scripted-words';
import { ECHO_HEARD_AS_REPLY_MS, HEARD_AS_WINDOW_MS, REPLY_WORDS, scriptTranscripts, type ReplyOptions } from './scripted-words';
import {
  DEBUG,
  printAroundVoice,
  printGateFrames,
  printMarks,
  printSilentMarks,
  printTail,
  printVoiceMatch,
} from './debug-print';
import { activeRms, bestMatch, endOfLastLoud, rms } from './signal';

/** Five sentences, each `FRAMES_PER_SENTENCE` × 80 ms of speech from the fixture TTS: 7 s of reply, more with gaps. */
export const REPLY =
  'The harbour was quiet that night. The keeper climbed the stairs. He lit the lamp at the top. ' +
  'A ship passed far out at sea. Then he went down to sleep.';
const FRAMES_PER_SENTENCE = 18;
/** Digital silence on the speakers' monitor (nothing playing) is exactly 0; this is far below any speech. */
const SILENT_RMS = 1e-4;
/** How long the voice waits for a sentence of the reply to begin before it talks over whatever sounds. */
const SENTENCE_START_WAIT_MS = 1000;
/** A reply is "lowered" once it stays this far below its level before the voice: the duck (−20 dB) or the cut. */
const LOWERED_DB = 10;
/**
 * The phrase's waveform against the room's recording (the voice plus the reply's echo, up to 10 dB under it, with
 * reverb and overdrive): 0.48 where it was, 0.26 at best where it was not (the wrong window, 2026-12-03).
 */
const VOICE_MIN_CORRELATION = 0.35;

export interface RoomSession {
  rig: Rig;
  panel: Page;
  session: ExtensionSession;
  speakers: Recording;
  room: Recording;
  close(): Promise<void>;
}

/** Progress on stderr with ROOM_VERBOSE=1 (the set-up takes a minute; this says where it is). */
export function progress(what: string): void {
  if (process.env.ROOM_VERBOSE) console.error(`[room ${new Date().toISOString().slice(11, 23)}] ${what}`);
}

/** `tunables`: live tunable values to set first, by path ('engine.bargeRatio'), as the settings panel would. */
export async function openRoom(acoustics: Acoustics, tunables: Record<string, number> = {}): Promise<RoomSession> {
  const rig = await startRig(acoustics);
  progress('rig up');
  let fixtures: FixtureHub | undefined;
  let session: ExtensionSession | undefined;
  try {
    fixtures = await startFixtureHub(undefined, {
      ttsSpeech: { samples: assistantSpeech(), framesPerChunk: FRAMES_PER_SENTENCE },
    });
    progress('fixture hub and test build ready');
    session = await launchExtension({ extensionDir: fixtures.extensionDir, pulseServer: rig.server });
    progress('browser up');
    const panel = await session.openPage('sidepanel.html');
    await panel.setViewportSize({ width: 420, height: 860 });
    await downloadModels(panel, fixtures.hub.url, [LLM_BUNDLE.id, ASR_BUNDLES.moonshine.id, TURN_BUNDLE.id, TTS_BUNDLE.id]);
    // WASM as in the spoken e2e turn; the debug panel allows the scripted model and the turn trace.
    progress('models downloaded');
    await sendFromPage(panel, request('settings/set', 'background', { patch: { computeBackend: 'wasm', debugPanel: true } }));
    await sendFromPage(
      panel,
      request('debug/llm-script', 'offscreen', { rules: [{ match: 'Everything you write is spoken aloud', reply: REPLY }] }),
    );
    await poll(
      () => panel.getByTestId('engine-state').getAttribute('data-ready'),
      (v) => v === 'yes',
      60_000,
    );
    for (const [path, value] of Object.entries(tunables)) {
      const r = await sendFromPage<{ ok: boolean }>(panel, request('tunables/set', 'background', { path, value }));
      if (!r.ok) throw new Error(`tunables/set ${path}=${value}: ${JSON.stringify(r)}`);
    }
    progress('engine ready');
    await panel.getByTestId('orb').click(); // hands-free: the microphone is on while replies play
    await poll(
      () => panel.getByTestId('engine-state').innerText(),
      (t) => /listening/i.test(t),
      30_000,
    );
    progress('listening');
    const speakers = rig.record('speakers.monitor');
    const room = rig.record('room.monitor');
    const s = session;
    const f = fixtures;
    return {
      rig,
      panel,
      session: s,
      speakers,
      room,
      async close() {
        speakers.stop();
        room.stop();
        if (process.env.ROOM_DUMP) {
          // The two recordings, for listening to a failure: raw float32, 48 kHz mono; sample 0 at the time in the name.
          mkdirSync(ARTIFACTS_DIR, { recursive: true });
          for (const [name, rec] of [
            ['speakers', speakers],
            ['room', room],
          ] as const)
            writeFileSync(join(ARTIFACTS_DIR, `room-${name}-${Math.round(rec.startedAt)}.f32`), rec.samples());
          writeFileSync(join(ARTIFACTS_DIR, 'room-marks.json'), JSON.stringify(await engineMarks(panel)));
        }
        await s.close();
        await f.close();
        await rig.close();
      },
    };
  } catch (e) {
    await session?.close();
    await fixtures?.close();
    await rig.close();
    throw e;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TERMINAL = new Set(['done', 'interrupted', 'failed']);

/** The wall-clock time the speakers went silent for good (≥ 1 s) at or after `from`; null if they never did. */
export function silentFrom(rec: Recording, from: number, to: number): number | null {
  const s = rec.between(from, to);
  const w = Math.round(RIG_RATE / 100);
  let quiet = 0;
  for (let i = 0; i + w <= s.length; i += w) {
    let sum = 0;
    for (let j = i; j < i + w; j++) sum += s[j]! * s[j]!;
    quiet = Math.sqrt(sum / w) < SILENT_RMS ? quiet + 1 : 0;
    if (quiet >= 100) return from + ((i + w) / RIG_RATE) * 1000 - quiet * 10;
  }
  return null;
}

async function marksAfter(panel: Page, from: number): Promise<EngineMark[]> {
  return (await engineMarks(panel)).slice(from);
}

/**
 * Hands-free off and on again: whatever the previous reply left (a phantom turn from its echo, a reply to it) is
 * cancelled, so each reply starts from a listening engine.
 */
async function freshStart(panel: Page): Promise<void> {
  const state = () => panel.getByTestId('engine-state').innerText();
  await panel.getByTestId('orb').click();
  await poll(state, (t) => !/listening|thinking|speaking/i.test(t), 15_000);
  await sleep(300);
  await panel.getByTestId('orb').click();
  await poll(state, (t) => /listening/i.test(t), 15_000);
  await sleep(500);
}

/**
 * Sends a typed question and follows its reply. With `say`, the user's phrase is played into the room `sayAfterMs`
 * after the reply became audible, and the reply the interruption gets is followed too (the user is silent then).
 */
export async function reply(room: RoomSession, say?: Say, options: ReplyOptions = {}): Promise<ReplyResult> {
  const { panel } = room;
  await freshStart(panel);
  if (options.echoHeardAsReply) await scriptTranscripts(panel, REPLY_WORDS, ECHO_HEARD_AS_REPLY_MS);
  const before = (await engineMarks(panel)).length;
  await panel.getByTestId('composer').fill('tell me a story about a lighthouse');
  await panel.getByRole('button', { name: 'Send' }).click();
  const started = await poll(
    () => marksAfter(panel, before),
    (m) => m.some((x) => x.name === 'first-audio'),
    90_000,
    50,
  ).catch(async (e: unknown) => {
    // The reply never became audible to the engine: say whether the speakers played it meanwhile (a start lost on
    // the way) or stayed silent (the player never started), 200 ms windows from its first sentence on.
    const marks = await marksAfter(panel, before);
    const speak = marks.find((x) => x.name === 'first-speak');
    if (speak) {
      const w = room.speakers.between(speak.wallAt, speak.wallAt + 6000);
      const step = Math.round(w.length / 30);
      const windows = Array.from({ length: 30 }, (_, i) => Math.round(rms(w.subarray(i * step, (i + 1) * step)) * 1e4) / 1e4);
      console.log('ROOM no first-audio: speakers from first-speak, 200 ms windows', JSON.stringify(windows));
    }
    throw e;
  });
  const audibleAt = Date.now();
  const turnId = started.find((x) => x.name === 'first-audio')!.turnId;
  return follow(room, before, turnId, audibleAt, say, options);
}

async function follow(
  room: RoomSession,
  before: number,
  turnId: string,
  audibleAt: number,
  say: Say | undefined,
  options: ReplyOptions,
): Promise<ReplyResult> {
  const { panel, rig } = room;
  const probeMs = 2500;
  // The residual the engine gets, while the user is still silent. A silent reply is probed once its echo is in the
  // room (the panel's "started" can precede its first audible sample on a busy machine); a talked-over one at once, so
  // the voice keeps its time. The recording's newest samples, not a wall-clock window: its blocks arrive late when
  // this process is busy.
  if (!say) {
    const echoing = () => activeRms(room.room.newest(200)) > 1e-4;
    for (const end = Date.now() + 2000; !echoing() && Date.now() < end;) await sleep(20);
  }
  const probeFrom = Date.now();
  const voiceIn = say ? audibleAt + say.afterMs - probeFrom - 200 : probeMs;
  const probe = await sendFromPage<{ ok: boolean; data?: { meanRms: number; peakRms: number } }>(
    panel,
    request('mic/probe', 'offscreen', { durationMs: Math.round(Math.max(100, Math.min(probeMs, voiceIn))) }),
  );
  const probeTo = Date.now();
  await sleep(300); // the recording's blocks up to probeTo have arrived
  const echoRms = rms(room.room.between(probeFrom, probeTo));
  const residualRms = probe.ok ? (probe.data?.meanRms ?? NaN) : NaN;
  const residualPeakRms = probe.ok ? (probe.data?.peakRms ?? NaN) : NaN;
  const silentMarks = (marks: EngineMark[]) => silentReplyMarks(marks, turnId);

  if (!say) {
    await poll(
      () => marksAfter(panel, before),
      (m) => m.some((x) => x.turnId === turnId && TERMINAL.has(x.name)),
      90_000,
      30,
    );
    const doneSeenAt = Date.now();
    // What the microphone delivers (after the canceller) while the echo's tail dies away; an onset from it shows now.
    const tail = await sendFromPage<{ ok: boolean; data?: { meanRms: number; peakRms: number; frameRms: number[] } }>(
      panel,
      request('mic/probe', 'offscreen', { durationMs: 1500 }),
    );
    if (DEBUG) await printTail(room, doneSeenAt, tail.data?.frameRms ?? []);
    const marks = await marksAfter(panel, before);
    if (DEBUG) printSilentMarks(marks, turnId);
    return { turnId, ...silentMarks(marks), echoRms, residualRms, residualPeakRms };
  }

  await sleep(Math.max(0, audibleAt + say.afterMs - Date.now()));
  // On a busy machine the voice worker can fall behind real time and the reply has gaps between sentences: talk over
  // sound, not over a gap. Best just after a sentence began (silence, then sound in the newest 100 ms of the speakers'
  // recording): each sentence lasts 1.4 s, so the voice lands inside it. Else whenever the reply sounds. The wait for
  // a sentence's start is short: a reply the voice worker keeps up with has no silence between sentences, and the
  // talked-over reply lasts about 8 s, so a longer wait (it was 4 s) put the voice in its last half second, where the
  // reply ends by itself before anything can stop it (sweeps 06j–06o: 7 of the 9 misses).
  const newestRms = (ms: number, skipMs = 0) => {
    const s = room.speakers.newest(ms + skipMs);
    return rms(s.subarray(0, s.length - Math.round((skipMs / 1000) * RIG_RATE)));
  };
  const playing = () => newestRms(100) > 1e-3;
  const began = () => playing() && newestRms(200, 100) < SILENT_RMS;
  for (const end = Date.now() + SENTENCE_START_WAIT_MS; !began() && Date.now() < end;) await sleep(10);
  for (const end = Date.now() + 5000; !playing() && Date.now() < end;) await sleep(10);
  const beforeVoice = await marksAfter(panel, before);
  const preempted = beforeVoice.some((m) => m.turnId === turnId && TERMINAL.has(m.name));
  // What the engine's microphone delivers (after Chrome's canceller) around the voice, for reading a run.
  const aroundVoice = DEBUG
    ? sendFromPage<{ ok: boolean; data?: { frameRms: number[] } }>(panel, request('mic/probe', 'offscreen', { durationMs: 4000 }))
        .then((p) => ({ startedAt: Date.now() - 4000, frames: p.data?.frameRms ?? [] }))
        // A backchannel's reply never reads it: a page closed before the probe returned must not end the process.
        .catch(() => null)
    : null;
  // The voice's words for a while (absent: the fixture recogniser's letters, words that want the floor), then the
  // reply's own again for its echo until it ends.
  const echoAfterVoice = options.echoHeardAsReply ? REPLY_WORDS : null;
  if (say.heardAs !== undefined || echoAfterVoice !== null)
    await scriptTranscripts(panel, say.heardAs ?? null, HEARD_AS_WINDOW_MS, echoAfterVoice);
  const { spawnedAt, startedAt, done } = await rig.say(say.wav);
  await done;
  const after = await poll(
    () => marksAfter(panel, before),
    (m) => m.some((x) => x.turnId === turnId && TERMINAL.has(x.name)),
    90_000,
    100,
  );
  const barge = after.find((m) => m.turnId === turnId && m.name === 'barge-in');
  const onset = after.find((m) => m.turnId === turnId && m.name === 'barge-onset');
  const detected = !preempted && barge !== undefined;
  if (say.kind === 'backchannel') {
    await sleep(1500); // an endpoint of the burst, should it become a turn, comes after the reply's end
    const fromVoice = (await marksAfter(panel, before)).slice(beforeVoice.length);
    const scripted = say.heardAs !== undefined ? await scriptTranscripts(panel, null, 0) : undefined;
    const backchannel = {
      ...backchannelOutcome(fromVoice, turnId, { text: say.text ?? '', preempted, barge }),
      ...(scripted !== undefined ? { heardAs: say.heardAs, transcriptsScripted: scripted } : {}),
    };
    if (DEBUG) printMarks(fromVoice, 0);
    return { turnId, ...silentMarks(beforeVoice), echoRms, residualRms, residualPeakRms, backchannel };
  }
  await sleep(1500);
  // When the voice began: found in the room's recording (paplay's start-up varies by up to a second under load).
  const searchFrom = spawnedAt;
  // The earliest strong match: in a run on 2026-12-08 a sound 3 s after the voice matched its start better (0.95).
  const match = bestMatch(room.room.between(searchFrom, spawnedAt + 4000), phraseStart(say.wav), 0.85);
  const found = match.correlation >= VOICE_MIN_CORRELATION ? match.index : -1;
  if (DEBUG) printVoiceMatch(match, startedAt + USER_LEAD_S * 1000 - spawnedAt);
  const voiceAt = found >= 0 ? searchFrom + (found / RIG_RATE) * 1000 : startedAt + USER_LEAD_S * 1000;
  const stoppedAt = silentFrom(room.speakers, voiceAt - 300, Date.now());
  // Up to the silence (a later reply, the interruption's own, must not count as the talked-over one being loud).
  const level = activeRms(room.speakers.between(voiceAt - 1000, voiceAt));
  const afterVoice = room.speakers.between(voiceAt, stoppedAt ?? Date.now());
  const loweredAt = voiceAt + (endOfLastLoud(afterVoice, level * 10 ** (-LOWERED_DB / 20)) / RIG_RATE) * 1000;
  if (DEBUG) await printAroundVoice(room, voiceAt, await aroundVoice);
  if (DEBUG) await printGateFrames(room, voiceAt);
  const duck = after.find((m) => m.turnId === turnId && m.name === 'barge-tentative' && m.wallAt >= voiceAt - 500);
  const echoPaths = after.filter((m) => m.name === 'echo-path');
  // A reply may mark its echo path more than once, each mark with the reply's counts so far: the newest per turn.
  const newestPerTurn = new Map(echoPaths.map((m) => [m.turnId, m]));
  const total = (field: string) => [...newestPerTurn.values()].reduce((n, m) => n + Number(m.fields?.[field] ?? 0), 0);
  const longest = (field: string) => Math.max(0, ...echoPaths.map((m) => Number(m.fields?.[field] ?? 0)));
  const end = after.find((m) => m.turnId === turnId && TERMINAL.has(m.name));
  const interrupted = {
    detected,
    /** When the user's voice reached the room's microphone, on the wall clock (the rig's recording found it). */
    voiceWallAt: Math.round(voiceAt),
    ...(end
      ? {
          endedBy: after
            .filter((m) => m.turnId === turnId && m.wallAt >= voiceAt - 1000 && m.wallAt <= end.wallAt)
            // A released burst says why: its match against the reply's audio (own echo at bargeEchoMatchMinScore).
            .map((m) => (typeof m.fields?.echoScore === 'number' ? `${m.name}(echo ${m.fields.echoScore})` : m.name))
            .join(' '),
          endedAfterVoiceMs: Math.round(end.wallAt - voiceAt),
        }
      : {}),
    preempted,
    longestRun: longest('longestRun'),
    voicedUnderGateFrames: total('voicedUnderGateFrames'),
    loudUnvoicedFrames: total('loudUnvoicedFrames'),
    // The unprocessed track's gate, where it has one: a miss on both tracks says the gates, not the canceller, missed.
    rawLongestRun: longest('rawLongestRun'),
    rawVoicedUnderGateFrames: total('rawVoicedUnderGateFrames'),
    engineLatencyMs: barge && onset ? barge.at - onset.at : undefined,
    byWords: barge ? barge.fields?.byWords === 1 : undefined,
    stopLatencyMs: detected && stoppedAt !== null ? stoppedAt - voiceAt : undefined,
    // Also for a miss: speakers that went quiet right after the voice say the reply had ended there by itself.
    ...(stoppedAt !== null ? { speakersSilentAfterVoiceMs: Math.round(stoppedAt - voiceAt) } : {}),
    loweredLatencyMs: detected ? Math.round(loweredAt - voiceAt) : undefined,
    voiceToEngineOnsetMs: onset ? Math.round(onset.wallAt - voiceAt) : undefined,
    voiceFound: found >= 0,
    voiceToDuckMs: duck ? Math.round(duck.wallAt - voiceAt) : undefined,
    duckTrack: duckTrack(duck?.fields),
    ...(typeof duck?.fields?.lagMs === 'number' ? { duckFrameLagMs: duck.fields.lagMs } : {}),
    duckToLoweredMs: duck && detected && loweredAt > voiceAt ? Math.round(loweredAt - duck.wallAt) : undefined,
    voiceAt,
    // A missed voice is in the reply's levels (docs/echo.md, "A missed voice").
    ...replyLevels(newestPerTurn.get(turnId)?.fields ?? {}),
  };
  // Before the voice: the user was silent.
  const early = silentMarks(beforeVoice);
  // The interruption's own reply, if it got one: follow it as a silent reply.
  let followUp: ReplyResult | undefined;
  if (detected) {
    const next = await poll(
      () => marksAfter(panel, before),
      (m) => {
        // A turn merged into the next utterance (the user went on) ends, but the reply is the merged turn's.
        const merged = new Set(m.filter((x) => x.name === 'merge').map((x) => x.turnId));
        return (
          m.some((x) => x.name === 'first-audio' && x.turnId !== turnId) ||
          m.some((x) => x.turnId !== turnId && TERMINAL.has(x.name) && !merged.has(x.turnId))
        );
      },
      60_000,
      50,
    ).catch(() => [] as EngineMark[]);
    const first = next.find((x) => x.name === 'first-audio' && x.turnId !== turnId);
    // The interruption has been read; the follow-up reply's echo is heard as its words again.
    if (first && options.echoHeardAsReply) await scriptTranscripts(panel, REPLY_WORDS, ECHO_HEARD_AS_REPLY_MS);
    if (first) followUp = await follow(room, before + next.indexOf(first), first.turnId, Date.now(), undefined, options);
  }
  if (DEBUG) printMarks(await marksAfter(panel, before), barge?.at ?? 0);
  return { turnId, ...early, interrupted, echoRms, residualRms, residualPeakRms, ...(followUp ? { followUp } : {}) };
}

/** Which gate held the reply, from its `barge-tentative` mark: both tracks' run (docs/echo.md), or one track's. */
function duckTrack(fields: EngineMark['fields']): string | undefined {
  if (fields?.unprocessedTrack === undefined) return undefined;
  if (fields.bothTracks) return 'both';
  return fields.unprocessedTrack ? 'unprocessed' : 'processed';
}
