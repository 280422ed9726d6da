/**
 * Levels in the room. The user's level is the active-speech RMS of the interruption phrases as they reach the
 * microphone (they are played into the room unchanged); the speaker level is the echo's active-speech RMS at the
 * microphone. The echo path's gain for a wanted level follows from the room's own gain on the assistant's speech,
 * measured by running the same sox effects over it, and from what the side panel actually plays (measured on the rig).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATED_DIR } from '../fixtures/audio/make-wav';
import { RIG_RATE, roomEffects, type Acoustics } from './rig';
import { activeRms } from './signal';
import { assistantSpeech, INTERRUPTIONS, userPhrase } from './speech';

const db = (x: number) => 20 * Math.log10(x);
const SOX_F32 = ['-t', 'raw', '-e', 'floating-point', '-b', '32', '-c', '1'];

function readF32(file: string): Float32Array {
  const b = readFileSync(file);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + (b.length & ~3)));
}

/** Active-speech RMS of the user's phrases at the microphone. */
export function userRms(): number {
  const levels = INTERRUPTIONS.map((_, i) => {
    const out = join(GENERATED_DIR, `room-user-${i}.f32`);
    execFileSync('sox', [userPhrase(i), ...SOX_F32, '-r', String(RIG_RATE), out]);
    return activeRms(readF32(out));
  });
  return Math.sqrt(levels.reduce((a, l) => a + l * l, 0) / levels.length);
}

/**
 * The room's gain (dB) on the assistant's speech with `gainDb` = 0: reverb and overdrive change the level. `activeDb`
 * compares active-speech levels (what the wanted level is set by); `energyDb` compares whole energies, which is what
 * the rig check measures live: it counts the reverb's tail wherever the reply's pauses fall, so it does not move with
 * how the reply was paced.
 */
export function roomGains(a: Omit<Acoustics, 'gainDb'>): { activeDb: number; energyDb: number } {
  const src = join(GENERATED_DIR, 'room-assistant.f32');
  assistantSpeech();
  const out = join(GENERATED_DIR, 'room-assistant.room.f32');
  execFileSync('sox', [
    ...SOX_F32,
    '-r',
    '24000',
    src,
    ...SOX_F32,
    '-r',
    String(RIG_RATE),
    out,
    // At the level the panel plays it: the overdrive's gain depends on the level it is driven at.
    'vol',
    String(10 ** (PANEL_GAIN_DB / 20)),
    ...roomEffects({ ...a, gainDb: 0 }),
  ]);
  const dry = upsample(assistantSpeech()).map((x) => x * 10 ** (PANEL_GAIN_DB / 20));
  const wet = readF32(out);
  return { activeDb: db(activeRms(wet)) - db(activeRms(dry)), energyDb: energyDb(wet) - energyDb(dry) };
}

/** Total energy of a signal, in dB. */
export function energyDb(s: Float32Array): number {
  let e = 0;
  for (const x of s) e += x * x;
  return 10 * Math.log10(e);
}

function upsample(s: Float32Array): Float32Array {
  const out = new Float32Array(s.length * 2);
  for (let i = 0; i < s.length; i++) out[2 * i] = out[2 * i + 1] = s[i]!;
  return out;
}

/**
 * What the side panel's player does to the level of the TTS output, measured on this rig (active RMS on the speakers'
 * monitor 0.0275 for a TTS output of 0.0766: the avatar's audio graph plays it 8.9 dB down). The room test checks the
 * level it gets at the microphone, so a change in the player shows there.
 */
export const PANEL_GAIN_DB = -8.9;

/** The active RMS the speakers play the assistant's speech at. */
export function playedRms(): number {
  return activeRms(upsample(assistantSpeech())) * 10 ** (PANEL_GAIN_DB / 20);
}

/** The echo-path gain that puts the speakers `levelDb` relative to the user at the microphone. */
export function echoGainDb(a: Omit<Acoustics, 'gainDb'>, levelDb: number): number {
  return levelDb + db(userRms()) - db(playedRms()) - roomGains(a).activeDb;
}

export { db };
