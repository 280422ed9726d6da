/**
 * Everything Sidetalk stores is in docs/security.md's "What is stored" table, with a way to delete it: each storage
 * key, IndexedDB database and cache name the code defines is found in the sources here and must appear in that
 * section. A new store added without its row (and its "delete it") fails this test.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const doc = readFileSync('docs/security.md', 'utf8');
const stored = (() => {
  const start = doc.indexOf('\n## What is stored, where, and how to delete it\n');
  const next = doc.indexOf('\n## ', start + 4);
  return doc.slice(start, next < 0 ? undefined : next);
})();

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

/** Names the code stores under: `…KEY = '…'` constants, IndexedDB names (`DB… = '…'`), Cache Storage names. */
function storeNames(): string[] {
  const names = new Set<string>();
  for (const file of ['entrypoints', 'core', 'components', 'models'].flatMap(sources)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\b(?:[A-Z_]*KEY|DB(?:_NAME)?|[A-Z_]*CACHE)\s*=\s*'([^']+)'/g)) names.add(m[1]!);
  }
  // A record key inside a database the table lists (the avatar store's one slot), not a store of its own.
  names.delete('user');
  return [...names].sort();
}

describe('docs/security.md lists everything stored', () => {
  it('finds the stores (the scan works)', () => {
    expect(storeNames()).toEqual(
      expect.arrayContaining([
        'settings',
        'media',
        'memory',
        'remoteLlm',
        'sidetalk-voices',
        'sidetalk-avatars',
        'transformers-cache',
      ]),
    );
  });

  it.each(storeNames())('"%s" has a row in "What is stored"', (name) => {
    expect(stored).toContain(`\`${name}\``);
  });

  it('every row says how to delete it', () => {
    const rows = stored.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| data') && !l.startsWith('|---'));
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) expect(row.split('|').filter((c) => c.trim()).length, row).toBe(3);
  });
});
