/**
 * The speech of the acoustic loop, all from espeak-ng (resampled by sox like tests/fixtures/audio/make-wav.ts):
 *  - the assistant's voice: a paragraph the fixture TTS decoder plays back (tests/fixtures/pocket/graphs.ts,
 *    mimiSpeechDecoder), 24 kHz, peak at −3 dBFS;
 *  - the user's interruptions: short phrases at 48 kHz, each peak-normalised to `USER_PEAK_DBFS`, with a known lead of
 *    silence so the time the voice starts is known to the sample.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATED_DIR, SOX_WAV_48K } from '../fixtures/audio/make-wav';

const ASSISTANT_TEXT =
  'The lighthouse stood at the end of the harbour wall, and every evening the keeper climbed its ninety steps to ' +
  'light the lamp. Ships passed in the dark, and none of them knew his name, but all of them saw the light.';

/** What the user says over the reply: interruptions of different lengths and shapes. */
export const INTERRUPTIONS = ['Wait, stop a moment.', 'Hold on, what about the second one?', 'Stop, I have a question.'];

/**
 * What the user says over the reply while listening: backchannels, and a cough-like burst (band-passed noise, 250 ms:
 * a stand-in with a cough's length and broadband energy, not a recorded cough). None of them should stop the reply.
 */
export const BACKCHANNELS = ['Mm-hm.', 'Yeah.', 'Right.', '(cough)'];
/**
 * What a real recogniser writes for each backchannel, for the scripted stand-in (`Say.heardAs`): Whisper-style text,
 * a cough as a bracketed sound. The listener tokens and sound captions core/engine/backchannel.ts reads.
 */
export const BACKCHANNELS_HEARD_AS = ['Mm-hmm.', 'Yeah.', 'Right.', '(coughs)'];

/** The user's voice peak at the microphone, dBFS (a normal speaking level for a raw, AGC-free laptop microphone). */
export const USER_PEAK_DBFS = -6;
/** Silence before each phrase: its speech starts this long after the file does. */
export const USER_LEAD_S = 0.2;

function run(cmd: string, args: string[]): void {
  execFileSync(cmd, args, { stdio: 'ignore' });
}

/** The assistant's voice as 24 kHz float samples. */
export function assistantSpeech(): Float32Array {
  mkdirSync(GENERATED_DIR, { recursive: true });
  const raw = join(GENERATED_DIR, 'room-assistant.raw.wav');
  const f32 = join(GENERATED_DIR, 'room-assistant.f32');
  if (!existsSync(f32)) {
    run('espeak-ng', ['-v', 'en-gb', '-s', '165', '-w', raw, ASSISTANT_TEXT]);
    run('sox', [raw, '-t', 'raw', '-r', '24000', '-e', 'floating-point', '-b', '32', '-c', '1', f32, 'norm', '-3']);
  }
  const b = readFileSync(f32);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
}

/** The WAV of interruption `i` (48 kHz mono 16-bit). */
export function userPhrase(i: number): string {
  return phraseWav(`room-user-${i}`, INTERRUPTIONS[i % INTERRUPTIONS.length]!);
}

/** The WAV of backchannel `i` (48 kHz mono 16-bit). */
export function backchannelPhrase(i: number): string {
  const k = i % BACKCHANNELS.length;
  return phraseWav(`room-back-${k}`, BACKCHANNELS[k]!);
}

/** Speaks `text` (or makes the cough-like burst) as a 48 kHz WAV with the lead and peak of every user phrase. */
function phraseWav(name: string, text: string): string {
  mkdirSync(GENERATED_DIR, { recursive: true });
  const raw = join(GENERATED_DIR, `${name}.raw.wav`);
  const out = join(GENERATED_DIR, `${name}.wav`);
  if (!existsSync(out)) {
    if (text === '(cough)') {
      run('sox', [
        '-n',
        ...SOX_WAV_48K,
        raw,
        'synth',
        '0.25',
        'pinknoise',
        'sinc',
        '300-3000',
        'fade',
        'q',
        '0.01',
        '0.25',
        '0.15',
      ]);
    } else {
      run('espeak-ng', ['-v', 'en-us', '-s', '160', '-w', raw, text]);
    }
    // Trim the leading silence, so the lead is exactly USER_LEAD_S.
    run('sox', [
      raw,
      ...SOX_WAV_48K,
      out,
      'silence',
      '1',
      '0.005',
      '0.5%',
      'norm',
      String(USER_PEAK_DBFS),
      'pad',
      String(USER_LEAD_S),
      '0.3',
    ]);
  }
  return out;
}

/** The phrase's first `seconds` of speech (after its lead), 48 kHz mono: what the rig looks for in the room's recording. */
export function phraseStart(wav: string, seconds = 0.5): Float32Array {
  const out = execFileSync('sox', [wav, '-t', 'raw', '-e', 'floating-point', '-b', '32', '-c', '1', '-r', '48000', '-'], {
    maxBuffer: 64 << 20,
  });
  const all = new Float32Array(out.buffer.slice(out.byteOffset, out.byteOffset + (out.length & ~3)));
  const lead = Math.round(USER_LEAD_S * 48000);
  return all.slice(lead, lead + Math.round(seconds * 48000));
}
