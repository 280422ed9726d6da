// Shared builders for character tests: a deterministic clock and id source, and a valid draft.
import { createInMemoryCharacterStore, type CharacterDraft, type CharacterStoreOptions } from '../../../core/characters';

export function draft(overrides: Partial<CharacterDraft> = {}): CharacterDraft {
  return {
    name: 'Ada',
    avatar: { kind: 'default' },
    voice: { kind: 'builtin', voiceId: 'cosette' },
    persona: { name: 'Ada', style: 'Dry wit, short answers.', greeting: 'Ada here.' },
    pronunciations: [{ word: 'Lovelace', sayAs: 'Love lace' }],
    ...overrides,
  };
}

export function makeStore(extra: Partial<CharacterStoreOptions> = {}) {
  let t = 1_000;
  let n = 0;
  const opts: CharacterStoreOptions = { now: () => (t += 1_000), newId: () => `user:${++n}`, ...extra };
  return createInMemoryCharacterStore(opts);
}
