/**
 * Writes the small parts of the test fixture's Pocket TTS bundle (bundle.json, tokenizer, bos, one preset voice, the
 * text conditioner) to a folder, one file per role, for the product TTS loop bench (tts-loop.ts) to read on the GPU
 * machine: the fixture's tokenizer is built from a file in tests/fixtures, which the bundled bench cannot reach there.
 *   npx jiti bench/product/write-pocket-fixture.ts <dir>
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildPocketBundle, DEFAULT_VOICES } from '../../tests/fixtures/pocket/generate';

const dir = process.argv[2] ?? 'bench/out/gpu-kit/pocket-fixture';
mkdirSync(dir, { recursive: true });
const files = buildPocketBundle({ withEncoder: false, voices: DEFAULT_VOICES.slice(0, 1) });
for (const [role, bytes] of files) {
  if (/^(flow_lm_main|flow_lm_flow|mimi_decoder)\./.test(role)) continue; // real-size ones are built on the machine
  writeFileSync(join(dir, role), bytes);
}
