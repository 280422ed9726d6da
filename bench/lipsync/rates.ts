/**
 * Lip-sync quality numbers on real speech: espeak-ng sentences at 24 kHz through the side panel's lip-sync
 * (core/lipsync/chunk-lipsync.ts, the function the avatar calls per TTS chunk). Reports mouth changes per second and
 * the offset between the first/last mouth shape and the voiced audio the envelope finds. Prints JSON + a table.
 *   npx jiti bench/lipsync/rates.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lipsyncForChunk } from '../../core/lipsync/chunk-lipsync';
import { rmsEnvelope, voicedSpan } from '../../core/lipsync/envelope';
import { changesPerSecond } from '../../core/lipsync/viseme-track';

const SENTENCES = [
  "Hi, I'm Sidetalk. What can I do for you?",
  'Tidal pools are rocky pools on the sea shore, filled with seawater at low tide.',
  'Maybe bring a jacket: it will be about twelve degrees and windy in Berlin tomorrow.',
  'Twelve times twelve is one hundred and forty four.',
];

const dir = 'bench/out';
mkdirSync(dir, { recursive: true });
const rows = SENTENCES.map((text, i) => {
  const raw = join(dir, `lips-${i}.raw.wav`);
  const wav = join(dir, `lips-${i}.wav`);
  execFileSync('espeak-ng', ['-v', 'en-us', '-s', '160', '-w', raw, text]);
  execFileSync('sox', [raw, '-r', '24000', '-c', '1', '-b', '16', wav]);
  const bytes = readFileSync(wav);
  const pcm = Float32Array.from(new Int16Array(bytes.buffer, bytes.byteOffset + 44, (bytes.length - 44) / 2), (v) => v / 32768);
  const { track, durationMs } = lipsyncForChunk(pcm, 24000, text);
  const voiced = voicedSpan(rmsEnvelope(pcm, 24000))!;
  const first = track.vtimes[0] ?? 0;
  const lastEnd = (track.vtimes.at(-1) ?? 0) + (track.vdurations.at(-1) ?? 0);
  return {
    text,
    audioMs: Math.round(durationMs),
    visemes: track.visemes.length,
    changesPerSecond: +changesPerSecond(track, 0, durationMs).toFixed(2),
    onsetOffsetMs: Math.round(first - voiced.start),
    endOffsetMs: Math.round(lastEnd - voiced.end),
  };
});
const mean = (k: 'changesPerSecond' | 'onsetOffsetMs' | 'endOffsetMs') =>
  +(rows.reduce((s, r) => s + r[k], 0) / rows.length).toFixed(2);
console.log(
  JSON.stringify({
    bench: 'lipsync-rates',
    rows,
    mean: { changesPerSecond: mean('changesPerSecond'), onsetOffsetMs: mean('onsetOffsetMs'), endOffsetMs: mean('endOffsetMs') },
  }),
);
console.log(
  '\n| sentence | audio ms | mouth changes/s | first shape − voice onset (ms) | last shape end − voice end (ms) |\n|---|---|---|---|---|',
);
for (const r of rows)
  console.log(`| ${r.text.slice(0, 40)}… | ${r.audioMs} | ${r.changesPerSecond} | ${r.onsetOffsetMs} | ${r.endOffsetMs} |`);
