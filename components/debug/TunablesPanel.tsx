import { useEffect, useState } from 'preact/hooks';
import { createEventReceiver, type RequestResult } from '../../core/protocol';
import { describeTunables, type TunableInfo, type TunableValue } from '../../core/tunables';
import { request, fromBroadcasters } from '../ui/runtime';

type State = RequestResult<'tunables/get'>;

/** Defaults and limits by path, from this page's copy of the registry (the same definition every context has). */
const KNOWN = new Map<string, TunableInfo>(describeTunables().map((k) => [k.path, k]));

function limitText(info: TunableInfo | undefined): string {
  if (!info) return '';
  const { min, max, integer } = info.limit;
  const range = min !== undefined || max !== undefined ? `${min ?? '…'}–${max ?? '…'}` : '';
  return [`default ${String(info.defaultValue)}`, range, integer ? 'integer' : ''].filter(Boolean).join(', ');
}

/**
 * Every threshold, editable live. The background owns the values: a change is validated and kept there (it survives a
 * reload) and reaches every context that reads it, the offscreen document's workers included. Only knobs something
 * reads are registered (tests/unit/tunables), so every knob here changes something.
 */
export function TunablesPanel() {
  const [state, setState] = useState<State | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => request('tunables/get', {}).then(setState, (e: Error) => setError(e.message));
  useEffect(() => {
    void load();
    // Another panel (or a test) may change a value: show what the owner holds now.
    const receive = createEventReceiver(
      (event) => {
        if (event.type === 'event/tunables') void load();
      },
      () => undefined,
    );
    const heard = fromBroadcasters(receive);
    chrome.runtime.onMessage.addListener(heard);
    return () => chrome.runtime.onMessage.removeListener(heard);
  }, []);

  const run = async (work: () => Promise<unknown>) => {
    try {
      await work();
      setError(null);
    } catch (e) {
      setError((e as Error).message);
    }
    await load();
  };
  const change = (path: string, value: TunableValue) => run(() => request('tunables/set', { path, value }));

  if (!state) return <p class="muted small">{error ?? 'Loading thresholds…'}</p>;
  const changed = Object.keys(state.overrides).length;
  return (
    <section class="tunables" aria-labelledby="tunables-heading" data-testid="tunables-panel">
      <h2 id="tunables-heading">Debug: thresholds</h2>
      <p class="muted small">
        {changed === 0 ? 'All defaults.' : `${changed} changed; kept across reloads.`}{' '}
        <button
          type="button"
          data-testid="tunables-reset"
          disabled={changed === 0}
          onClick={() => void run(() => request('tunables/reset', {}))}
        >
          Reset all
        </button>
      </p>
      {error && (
        <p class="notice" role="alert">
          {error}
        </p>
      )}
      {Object.entries(state.values).map(([section, values]) => (
        <details key={section}>
          <summary>{section}</summary>
          {Object.entries(values).map(([key, value]) => {
            const path = `${section}.${key}`;
            const info = KNOWN.get(path);
            const isChanged = path in state.overrides;
            return (
              <label class="tunable" key={path} title={limitText(info)}>
                <span>
                  {key}
                  {isChanged ? ' •' : ''}
                </span>
                {typeof value === 'boolean' ? (
                  <input
                    type="checkbox"
                    checked={value}
                    data-testid={`tunable-${path}`}
                    onChange={(e) => void change(path, (e.target as HTMLInputElement).checked)}
                  />
                ) : typeof value === 'number' ? (
                  <input
                    type="number"
                    value={String(value)}
                    step="any"
                    data-testid={`tunable-${path}`}
                    onChange={(e) => void change(path, Number((e.target as HTMLInputElement).value))}
                  />
                ) : (
                  <input
                    type="text"
                    value={value}
                    data-testid={`tunable-${path}`}
                    onChange={(e) => void change(path, (e.target as HTMLInputElement).value)}
                  />
                )}
              </label>
            );
          })}
        </details>
      ))}
    </section>
  );
}
