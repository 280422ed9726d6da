import { useEffect, useState } from 'preact/hooks';
import { FactMemory, type SerializedMemory } from '../../core/memory/fact-memory';
import { createEventReceiver } from '../../core/protocol';
import { fromBroadcasters, request, useSettings } from '../ui/runtime';

/** What Sidetalk remembers about the user (stated facts only), with a way to forget each one or everything. */
export function MemoryPanel() {
  const [settings, updateSettings, settingsError] = useSettings();
  const [memory, setMemory] = useState<SerializedMemory | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    request('memory/get', {}).then(setMemory, (e: Error) => setError(e.message));
    const receive = createEventReceiver(
      (event) => {
        if (event.type === 'event/memory') setMemory(event.payload.memory);
      },
      () => undefined,
    );
    const heard = fromBroadcasters(receive);
    chrome.runtime.onMessage.addListener(heard);
    return () => chrome.runtime.onMessage.removeListener(heard);
  }, []);
  const forget = (what: { index: number } | { all: true }) =>
    request('memory/forget', what).then(setMemory, (e: Error) => setError(e.message));

  return (
    <section class="memory" aria-labelledby="memory-heading" data-testid="memory-panel">
      <h2 id="memory-heading">What Sidetalk remembers</h2>
      <p class="muted small">
        Facts you told it (name, places, likes, plans), found in your own words by simple rules. Kept only in this browser
        profile; they are used in Sidetalk’s prompts (and so sent to your own model server if you use one).
      </p>
      <label class="switch">
        <span>Remember facts I tell you</span>
        <input
          type="checkbox"
          checked={settings?.memoryEnabled ?? false}
          disabled={!settings}
          onChange={(e) => void updateSettings({ memoryEnabled: (e.target as HTMLInputElement).checked })}
          data-testid="memory-toggle"
        />
      </label>
      {settings && !settings.memoryEnabled && (
        <p class="muted small" data-testid="memory-off">
          Memory is off: nothing new is remembered and nothing below is used. Forget removes it for good.
        </p>
      )}
      {(error ?? settingsError) && (
        <p class="notice" role="alert" data-testid="memory-error">
          {error ?? settingsError}
        </p>
      )}
      {memory && memory.facts.length === 0 && <p class="muted small">Nothing yet.</p>}
      <ul class="memory-list">
        {memory?.facts.map((fact, index) => (
          <li key={`${fact.kind}-${fact.key}-${index}`} data-testid="memory-fact">
            <span>{FactMemory.describe(fact)}</span>
            <button
              type="button"
              class="button"
              onClick={() => void forget({ index })}
              aria-label={`Forget: ${FactMemory.describe(fact)}`}
            >
              Forget
            </button>
          </li>
        ))}
      </ul>
      {memory && memory.facts.length > 0 && (
        <button type="button" class="button" onClick={() => void forget({ all: true })} data-testid="forget-all">
          Forget everything
        </button>
      )}
    </section>
  );
}
