import { BUILT_IN_CHARACTERS, characterSchema, type Character } from '../../core/characters';
import { sendRequest, type Send } from '../../core/protocol';

/**
 * The active character as the offscreen document knows it. The background owns the characters (chrome.storage is
 * not available here): it pushes every change (`conversation/character`), and this asks once at start-up and again
 * whenever a conversation names a character it doesn't hold. Until an answer arrives the default character speaks.
 */
export class ActiveCharacter {
  private value: Character = BUILT_IN_CHARACTERS[0]!;
  private refreshing: Promise<void> | null = null;
  private version = 0;

  constructor(private readonly send: Send) {
    void this.refresh();
  }

  get current(): Character {
    return this.value;
  }

  /** A pushed character (validated by the router); newer than any refresh still in flight. */
  set(character: Character): void {
    this.version += 1;
    this.value = character;
  }

  /** Asks the background for the active character; keeps the current one when it can't answer. */
  refresh(): Promise<void> {
    const started = this.version;
    this.refreshing ??= sendRequest(this.send, 'characters/get-active', {}, 5_000)
      .then((reply) => {
        if (!reply.ok || this.version !== started) return;
        const parsed = characterSchema.safeParse(reply.data);
        if (parsed.success) this.value = parsed.data;
      })
      .catch(() => undefined)
      .finally(() => {
        this.refreshing = null;
      });
    return this.refreshing;
  }

  /** A conversation request may name a character: a built-in is taken at once, anything else is looked up. */
  use(id: string | undefined): void {
    if (!id || id === this.value.id) return;
    const builtIn = BUILT_IN_CHARACTERS.find((c) => c.id === id);
    if (builtIn) this.set(builtIn);
    else void this.refresh();
  }
}
