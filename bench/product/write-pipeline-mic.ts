/**
 * Writes what the pipeline bench (pipeline-loop.ts) feeds its microphone from, into a folder that travels in the GPU
 * kit (espeak-ng is not on the GPU machine): the scripted questions (espeak-ng + sox, tests/fixtures/audio/make-wav.ts)
 * as one 16 kHz mono 16-bit WAV (mic.wav.gz), each question followed by `--gap` seconds of silence; `mic.json` with each
 * question's text and where its part of the file starts and ends; and the Silero VAD weights the product ships (the
 * npm package's silero_vad_v5.onnx, as wxt.config.ts copies it).
 *   npx jiti bench/product/write-pipeline-mic.ts [dir] [--gap 8]
 * The questions go to the language model (none is a tool's: a weather, time, sum or look-up question is answered
 * by the router, core/tools/router.ts, and would skip the LLM).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { GENERATED_DIR, makeScriptWav } from '../../tests/fixtures/audio/make-wav';

export const PIPELINE_QUESTIONS = [
  'What do you think about the sea?',
  'What should I cook tonight?',
  'Give me a word that rhymes with orange.',
  'Can you suggest a name for my cat?',
  'How do I make good coffee at home?',
  'Make up a short story about a dragon.',
  'Recommend a good book for a long train ride.',
  'Why do cats purr?',
];

export interface MicQuestion {
  text: string;
  /** Where the question's part of the file starts and ends (its silence included), seconds. */
  startS: number;
  endS: number;
}

const LEAD_S = 1;

if (process.argv[1]?.endsWith('write-pipeline-mic.ts')) {
  const dir = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : 'bench/out/gpu-kit/pipeline';
  const i = process.argv.indexOf('--gap');
  const gap = i > 0 ? Number(process.argv[i + 1]) : 8;
  mkdirSync(dir, { recursive: true });
  const name = `pipeline-mic-gap${gap}`;
  const { wav } = makeScriptWav(
    name,
    PIPELINE_QUESTIONS.map((q) => [q, gap] as const),
    LEAD_S,
  );
  // Gzipped (mostly silence: 2.6 MB → 0.7 MB of the kit's carry).
  const plain = join(dir, 'mic.wav');
  execFileSync('sox', [wav, '-r', '16000', '-c', '1', '-b', '16', plain]);
  writeFileSync(`${plain}.gz`, gzipSync(readFileSync(plain), { level: 9 }));
  rmSync(plain);
  let at = 0;
  const questions: MicQuestion[] = PIPELINE_QUESTIONS.map((text, k) => {
    const part = join(GENERATED_DIR, `${name}-${k}.wav`);
    const seconds = Number(execFileSync('soxi', ['-D', part]).toString().trim());
    const q = { text, startS: at + (k === 0 ? LEAD_S : 0), endS: at + seconds };
    at += seconds;
    return q;
  });
  writeFileSync(join(dir, 'mic.json'), JSON.stringify({ gapS: gap, questions }, null, 2));
  copyFileSync('node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx', join(dir, 'silero_vad_v5.onnx'));
  console.log(`${dir}: ${questions.length} questions, ${at.toFixed(1)} s`);
}
