import {
  BUILT_IN_CHARACTERS,
  CharacterError,
  SnapshotCharacterStore,
  type AssetAvailability,
  type Character,
  type CharacterSnapshot,
  type CharacterSnapshotBackend,
} from '../../core/characters';
import { eventMessage, sendRequest, type EventMessage, type Handlers, type Send } from '../../core/protocol';

export const CHARACTERS_KEY = 'characters';

/** Pocket TTS English presets (docs/tts.md): a character file naming one of these keeps its voice on import. */
export const PRESET_VOICE_IDS: readonly string[] = [
  'alba',
  'azelma',
  'cosette',
  'eponine',
  'fantine',
  'javert',
  'jean',
  'marius',
];

/** Minimal chrome.storage.local surface, so unit tests pass a fake. */
export interface LocalStorageArea {
  get(key: string): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
}

/** The characters snapshot in chrome.storage.local: survives the service worker being stopped after 30 s idle. */
export function chromeStorageBackend(area: LocalStorageArea, key = CHARACTERS_KEY): CharacterSnapshotBackend {
  return {
    load: async () => (await area.get(key))[key],
    save: async (snapshot: CharacterSnapshot) => {
      await area.set({ [key]: snapshot });
    },
  };
}

export interface CharacterHandlerDeps {
  area: LocalStorageArea;
  broadcast(event: EventMessage): void;
  /** Sends to the offscreen document (it may not exist: the failure is ignored, it asks again on its next turn). */
  send: Send;
  now?: () => number;
}

type CharacterRequest =
  | 'characters/list'
  | 'characters/get-active'
  | 'characters/set-active'
  | 'characters/create'
  | 'characters/update'
  | 'characters/duplicate'
  | 'characters/delete'
  | 'characters/export'
  | 'characters/import';

/** A readable sentence for the UI: store rule violations keep their message, anything else says what failed. */
function rethrow(err: unknown): never {
  if (err instanceof CharacterError) throw new Error(err.message);
  throw err instanceof Error ? err : new Error(String(err));
}

function fileName(characters: readonly Character[], ids: readonly string[] | undefined, now: number): string {
  const date = new Date(now).toISOString().slice(0, 10);
  if (ids?.length === 1) {
    const name = characters.find((c) => c.id === ids[0])?.name ?? 'character';
    const safe =
      name
        .replace(/[^A-Za-z0-9 _-]+/g, '')
        .trim()
        .replace(/\s+/g, '-')
        .slice(0, 40) || 'character';
    return `sidetalk-${safe}-${date}.json`;
  }
  return `sidetalk-characters-${date}.json`;
}

/**
 * The characters/* handlers of the background. Every change is broadcast as event/characters (the side panel's
 * switcher and settings follow it), and a change to the active character is pushed to the conversation.
 */
export function createCharacterHandlers(deps: CharacterHandlerDeps): Pick<Handlers<'background'>, CharacterRequest> {
  const now = deps.now ?? (() => Date.now());
  const backend = chromeStorageBackend(deps.area);
  const store = (assets?: AssetAvailability) => new SnapshotCharacterStore(backend, { now, ...(assets ? { assets } : {}) });

  async function snapshot() {
    const s = store();
    const [characters, active] = await Promise.all([s.list(), s.getActive()]);
    return { characters, activeId: active.id };
  }

  async function changed(pushActive: { greet: boolean } | null): Promise<void> {
    const list = await snapshot();
    deps.broadcast(eventMessage('event/characters', list));
    if (!pushActive) return;
    const character = list.characters.find((c) => c.id === list.activeId) ?? BUILT_IN_CHARACTERS[0]!;
    const reply = await sendRequest(deps.send, 'conversation/character', { character, greet: pushActive.greet }, 5_000);
    // No offscreen document yet is normal: it asks for the active character when a conversation starts.
    if (!reply.ok && reply.error.code !== 'unavailable' && reply.error.code !== 'timeout') {
      console.warn(`[sidetalk] could not update the conversation's character: ${reply.error.message}`);
    }
  }

  const activeId = async () => (await store().getActive()).id;

  return {
    'characters/list': () => snapshot(),
    'characters/get-active': () => store().getActive(),
    'characters/set-active': async ({ id, greet }) => {
      const c = await store().setActive(id).catch(rethrow);
      await changed({ greet: greet ?? false });
      return c;
    },
    'characters/create': async ({ draft }) => {
      const c = await store().create(draft).catch(rethrow);
      await changed(null);
      return c;
    },
    'characters/update': async ({ id, patch }) => {
      const c = await store().update(id, patch).catch(rethrow);
      await changed(id === (await activeId()) ? { greet: false } : null);
      return c;
    },
    'characters/duplicate': async ({ id }) => {
      const c = await store().duplicate(id).catch(rethrow);
      await changed(null);
      return c;
    },
    'characters/delete': async ({ id }) => {
      const wasActive = id === (await activeId());
      await store().delete(id).catch(rethrow);
      await changed(wasActive ? { greet: false } : null);
      return {};
    },
    'characters/export': async ({ ids }) => {
      const s = store();
      const text = await s.exportFile(ids).catch(rethrow);
      return { fileName: fileName(await s.list(), ids, now()), text };
    },
    'characters/import': async ({ text, clonedVoiceIds }) => {
      const cloned = new Set(clonedVoiceIds ?? []);
      const assets: AssetAvailability = {
        // There is no store of user GLB avatars yet: every user avatar falls back to the default (with a warning).
        hasUserAvatar: () => false,
        hasVoice: (kind, voiceId) => (kind === 'builtin' ? PRESET_VOICE_IDS.includes(voiceId) : cloned.has(voiceId)),
      };
      const result = await store(assets).importFile(text).catch(rethrow);
      if (result.ok) await changed(null);
      return result;
    },
  };
}
