/**
 * What the room test prints with ROOM_DEBUG=1: the speakers and the raw room around a reply's end and around the
 * user's voice, the engine's onsets, echo-path marks and utterances. Only for reading a run; nothing here decides.
 */
import { request, sendFromPage, type EngineMark } from '../e2e/harness';
import { RIG_RATE, type Recording } from './rig';
import type { RoomSession } from './session';
import { silentFrom } from './session';
import { rms } from './signal';

export const DEBUG = Boolean(process.env.ROOM_DEBUG);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** 32 ms RMS frames of a recording from 0.5 s before `at` to 1.5 s after it. */
function profile(rec: Recording, at: number): string {
  const raw = rec.between(at - 500, at + 1500);
  const w = Math.round(RIG_RATE * 0.032);
  const prof: number[] = [];
  for (let i = 0; i + w <= raw.length; i += w) prof.push(Math.round(rms(raw.subarray(i, i + w)) * 1e3) / 1e3);
  return JSON.stringify(prof);
}

/** A silent reply's end: when the speakers went quiet, both recordings around it, and the microphone's tail. */
export async function printTail(room: RoomSession, doneSeenAt: number, tailFrames: number[]): Promise<void> {
  const speakersSilent = silentFrom(room.speakers, doneSeenAt - 3000, Date.now());
  console.log('ROOM speakers silent after done seen (ms)', speakersSilent === null ? null : speakersSilent - doneSeenAt);
  await sleep(1800);
  console.log('ROOM speakers from done-0.5s', profile(room.speakers, doneSeenAt));
  console.log('ROOM raw mic from done-0.5s', profile(room.room, doneSeenAt));
  console.log('ROOM tail', JSON.stringify(tailFrames.map((r) => Math.round(r * 1e4) / 1e4)));
}

/** A silent reply's onsets (relative to its end), echo-path marks and the utterances that ended after it. */
export function printSilentMarks(marks: EngineMark[], turnId: string): void {
  const done = marks.find((m) => m.turnId === turnId && ['done', 'interrupted', 'failed'].includes(m.name));
  const onsets = marks
    .filter((m) => m.name === 'speech-start')
    .map((m) => ({ afterDoneMs: done ? Math.round(m.at - done.at) : null, ...m.fields }));
  if (onsets.length > 0) console.log('ROOM onsets', JSON.stringify(onsets));
  console.log('ROOM echo', JSON.stringify(marks.filter((m) => m.name === 'echo-path').map((m) => m.fields)));
  const ends = marks.filter((m) => (m.name === 'endpoint' || m.name === 'discarded') && m.turnId !== turnId);
  console.log('ROOM utterances', JSON.stringify(ends.map((m) => ({ name: m.name, turnId: m.turnId, ...m.fields }))));
}

/** Where the user's phrase was found in the room's recording, against where the rig meant it to be. */
export function printVoiceMatch(match: { index: number; correlation: number }, expectedMs: number): void {
  console.log(
    'ROOM voice match',
    JSON.stringify({ ...match, afterSpawnMs: (match.index / RIG_RATE) * 1000, expected: expectedMs }),
  );
}

/** The speakers' and the room's level in 100 ms steps around the voice (dB; '.' below −60 dB), and the panel's latency. */
export async function printAroundVoice(
  room: RoomSession,
  voiceAt: number,
  mic?: { startedAt: number; frames: number[] } | null,
): Promise<void> {
  if (mic) {
    const first = Math.round((voiceAt - mic.startedAt) / 32);
    const shown = mic.frames.map((r) => Math.round(r * 1e3));
    console.log(`ROOM mic after the canceller (RMS ×1e3, 32 ms frames; voice near frame ${first})`, JSON.stringify(shown));
  }
  const envelope = (rec: Recording) =>
    Array.from({ length: 40 }, (_, i) => {
      const r = rms(rec.between(voiceAt - 2000 + i * 100, voiceAt - 1900 + i * 100));
      return r < 1e-3 ? '.' : String(Math.round(20 * Math.log10(r)));
    }).join(' ');
  console.log(`ROOM around the voice (−2 s … +2 s)\n speakers ${envelope(room.speakers)}\n room     ${envelope(room.room)}`);
  const latency = await room.panel
    .evaluate(() => {
      type El = { sidetalkAvatar?: { probe(): { snapshot(): { baseLatency: number; outputLatency: number } } } };
      const el = [...document.querySelectorAll('.sidetalk-avatar div')].find((d) => (d as El).sidetalkAvatar) as El;
      const s = el?.sidetalkAvatar?.probe().snapshot();
      return s ? { baseLatency: s.baseLatency, outputLatency: s.outputLatency } : null;
    })
    .catch((e: unknown) => String(e));
  console.log('ROOM panel audio latency (s)', JSON.stringify(latency));
}

/** The engine's marks of a talked-over reply and what followed, at engine-clock times relative to `t0` (the barge-in). */
export function printMarks(all: EngineMark[], t0: number): void {
  const names = ['echo-path', 'speech-start', 'barge-tentative', 'barge-released', 'barge-in', 'endpoint', 'discarded'];
  const more = ['merge', 'interrupted', 'first-audio', 'done', 'end-of-speech'];
  const keep = all.filter((m) => (m.fields && names.includes(m.name)) || more.includes(m.name));
  const shown = keep.map((m) => ({ name: m.name, turnId: m.turnId, at: Math.round(m.at - t0), ...m.fields }));
  console.log('ROOM marks', JSON.stringify(shown));
}

/**
 * Both barge gates' frames around the voice (ROOM_TUNABLES=engine.traceGateFrames=1; core/engine/gate-frames.ts): each
 * frame's level against the gate it met, in ms from the voice. Nothing when the log is off.
 */
export async function printGateFrames(room: RoomSession, voiceAt: number): Promise<void> {
  type Frames = { ok: boolean; data?: { columns: string[]; rows: number[][]; clockToWallMs: number } };
  const r = await sendFromPage<Frames>(room.panel, request('debug/gate-frames', 'offscreen')).catch(() => null);
  if (!r?.ok || !r.data || r.data.rows.length === 0) return;
  const { columns, rows, clockToWallMs } = r.data;
  const keep = ['prob', 'rms', 'gate', 'candidate', 'rawProb', 'rawRms', 'rawGate', 'rawCandidate', 'echo', 'playback', 'floor'];
  const at = columns.indexOf('at');
  const near = rows.filter((row) => Math.abs(row[at]! + clockToWallMs - voiceAt - 600) <= 900);
  const shown = near.map((row) => [
    Math.round(row[at]! + clockToWallMs - voiceAt),
    ...keep.map((c) => Math.round(row[columns.indexOf(c)]! * 1e3) / 1e3),
  ]);
  console.log(`ROOM gate frames (ms from the voice, ${keep.join(', ')})\n${shown.map((x) => x.join(' ')).join('\n')}`);
}
