/**
 * Merges a second stage-bench results file into a first (jobs re-run or added on a later lease) and writes the
 * committed pair bench/results/<name>.json + .md. Jobs of the second file replace same-id jobs of the first; the
 * merge is recorded in meta.merged so the provenance of every number stays visible.
 *
 *   npx jiti scripts/bench/merge-results.ts <base.json> <extra.json> <out.json> "<note>"
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { renderMarkdown, type StagesDoc } from '../../bench/stages/report';

const [baseFile, extraFile, outFile, note] = process.argv.slice(2);
if (!baseFile || !extraFile || !outFile) throw new Error('usage: merge-results.ts <base.json> <extra.json> <out.json> [note]');
const base = JSON.parse(readFileSync(baseFile, 'utf8')) as StagesDoc;
const extra = JSON.parse(readFileSync(extraFile, 'utf8')) as StagesDoc;
const ids = new Set(extra.results.map((r) => r.id));
const replaced = base.results.filter((r) => ids.has(r.id)).map((r) => r.id);
const merged: StagesDoc = {
  meta: {
    ...base.meta,
    merged: [
      ...((base.meta.merged as unknown[]) ?? []),
      {
        date: extra.meta.date,
        host: extra.meta.host,
        adapter: (extra.meta.adapter as { description?: string } | null)?.description,
        versions: extra.meta.versions,
        jobs: [...ids],
        replaced,
        note: note ?? '',
      },
    ],
  },
  results: [...base.results.filter((r) => !ids.has(r.id)), ...extra.results],
};
writeFileSync(outFile, `${JSON.stringify(merged, null, 2)}\n`);
writeFileSync(outFile.replace(/\.json$/, '.md'), `${renderMarkdown(merged)}\n`);
console.log(`${outFile}: ${merged.results.length} jobs (${replaced.length} replaced, ${ids.size - replaced.length} added)`);
