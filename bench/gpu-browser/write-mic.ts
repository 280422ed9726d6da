/**
 * Writes the fake microphone's WAV (espeak-ng + sox) and prints its path: the browser-latency questions, each followed
 * by at least `--gap` seconds of silence (default: the script's own 2–6 s), so a slower machine can finish a reply
 * before the next question talks over it.
 */
import { makeScriptWav } from '../../tests/fixtures/audio/make-wav';
import { MIC_SCRIPT } from '../browser-latency/mic-script';

const i = process.argv.indexOf('--gap');
const gap = i > 0 ? Number(process.argv[i + 1]) : 0;
const script = MIC_SCRIPT.map(([q, s]) => [q, Math.max(s, gap)] as const);
console.log(makeScriptWav(gap ? `gpu-browser-mic-gap${gap}` : 'gpu-browser-mic', script).wav);
