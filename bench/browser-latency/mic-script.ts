/**
 * The fake microphone's script for the browser-latency bench: spoken questions (espeak-ng, resampled by sox to 48 kHz
 * mono 16-bit like tests/fixtures/audio/make-wav.ts) separated by silences of different lengths, long ones and some
 * just past the endpoint wait, so that replies follow each other closely. Chromium loops the file.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATED_DIR } from '../../tests/fixtures/audio/make-wav';

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
  mkdirSync(GENERATED_DIR, { recursive: true });
  const out = join(GENERATED_DIR, `${name}.wav`);
  const parts: string[] = [];
  MIC_SCRIPT.forEach(([text, gap], i) => {
    const raw = join(GENERATED_DIR, `${name}-${i}.raw.wav`);
    const part = join(GENERATED_DIR, `${name}-${i}.wav`);
    if (!existsSync(part)) {
      execFileSync('espeak-ng', ['-v', 'en-us', '-s', '160', '-w', raw, text]);
      execFileSync('sox', [raw, '-r', '48000', '-c', '1', '-b', '16', part, 'pad', i === 0 ? '1' : '0', String(gap)]);
    }
    parts.push(part);
  });
  if (!existsSync(out)) execFileSync('sox', [...parts, out]);
  const seconds = Number(execFileSync('soxi', ['-D', out]).toString().trim());
  return { wav: out, seconds };
}
