import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeTunables } from '../../../core/tunables';
import { buildReaderMap, CONTEXTS, DELIVERED, ROOT, type ContextName } from './reader-map';

const map = buildReaderMap();
const knobs = describeTunables().map((k) => k.path);

describe('tunables reader map', () => {
  it('knows every context: each entrypoint and each worker a source starts is one', () => {
    const entries = new Set<string>(Object.values(CONTEXTS));
    for (const worker of map.workerEntries) expect(entries, `worker ${worker} is not in CONTEXTS`).toContain(worker);
    for (const name of readdirSync(join(ROOT, 'entrypoints'))) {
      const path = `entrypoints/${name}`;
      const isDir = statSync(join(ROOT, path)).isDirectory();
      const files = isDir ? readdirSync(join(ROOT, path)).map((f) => `${path}/${f}`) : [path];
      expect(
        files.some((f) => entries.has(f)),
        `entrypoint ${path} is not in CONTEXTS`,
      ).toBe(true);
    }
  });

  it('every registered knob is read in a context that receives changes', () => {
    const unread = knobs.filter((path) => ![...(map.readers.get(path) ?? [])].some((c) => DELIVERED.includes(c)));
    expect(unread, 'knobs nothing reads: remove them from core/tunables').toEqual([]);
  });

  it('no knob is read in a context that cannot receive a change', () => {
    const stranded: string[] = [];
    for (const [path, contexts] of map.readers) {
      for (const context of contexts) if (!DELIVERED.includes(context)) stranded.push(`${path} in ${context}`);
    }
    expect(stranded, 'read where no change arrives: make it a constant there, or deliver to that context').toEqual([]);
  });

  it('every read names a registered knob, and every section is read key by key', () => {
    expect([...map.files.keys()].filter((path) => !knobs.includes(path))).toEqual([]);
    expect(map.wholeSectionUses, 'a section handed on whole hides which knobs are read').toEqual([]);
  });

  it('no knob is read only once, when a module loads (a later change would never be seen)', () => {
    expect([...map.loadTimeReads]).toEqual([]);
  });

  it('finds reads through aliases, locals, default parameters, spreads and destructuring', () => {
    const fileOf = (path: string) => [...(map.files.get(path) ?? [])];
    expect(fileOf('engine.endpointSilenceMs')).toContain('core/engine/end-of-turn-check.ts'); // `engineTunables as T`
    expect(fileOf('lipsync.closureMinMs')).toContain('core/lipsync/viseme-track.ts'); // `const T = lipsyncTunables`
    expect(fileOf('tts.selfTestMinSnrDb')).toContain('core/tts/self-test.ts'); // `t: typeof ttsTunables = ttsTunables`
    expect(fileOf('weights.partBytes')).toContain('core/weights/downloader.ts'); // `{ ...weightsTunables }`
    const readers = (path: string) => [...(map.readers.get(path) ?? [])].sort();
    expect(readers('tts.temperature')).toEqual(['tts-worker']);
    expect(readers('llm.maxNewTokens')).toEqual(['model-worker']);
    expect(readers('lipsync.jawAttack')).toContain('sidepanel');
    expect(readers('engine.vadOn')).toEqual(['offscreen']);
    expect(readers('tools.wikipediaCacheTtlMs')).toContain('background');
  });

  it('lists, for the knob walk, which contexts read each knob', () => {
    const contexts = new Set<ContextName>();
    for (const path of knobs) map.readers.get(path)?.forEach((c) => contexts.add(c));
    expect([...contexts].sort()).toEqual([...DELIVERED].sort());
  });
});
