/**
 * The fake microphone's script for the browser-latency bench: spoken questions (espeak-ng, resampled by sox to 48 kHz
 * mono 16-bit like tests/fixtures/audio/make-wav.ts) separated by silences of different lengths, long ones and some
 * just past the endpoint wait, so that replies follow each other closely. Chromium loops the file.
 */
import { makeScriptWav } from '../../tests/fixtures/audio/make-wav';

/** [question, seconds of silence after it] */
export const MIC_SCRIPT: ReadonlyArray<readonly [string, number]> = [
  ['What time is it in Tokyo right now?', 6],
  ['Tell me something about the sea.', 2.2],
  ['And the mountains?', 6],
  ['How far away is the moon?', 5],
  ['What should I cook tonight?', 2],
  ['Something quick, please.', 6],
  ['Who wrote the Odyssey?', 5],
  ['Is it going to rain tomorrow?', 2.5],
  ['What about the weekend?', 6],
  ['Give me a word that rhymes with orange.', 5],
  ['Thanks, that is all.', 6],
];

export function makeMicScript(name = 'browser-latency-mic'): { wav: string; seconds: number } {
  return makeScriptWav(name, MIC_SCRIPT);
}
