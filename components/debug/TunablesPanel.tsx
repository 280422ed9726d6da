import { useEffect, useState } from 'preact/hooks';
import { request } from '../ui/runtime';

type Snapshot = Record<string, Record<string, number | boolean | string>>;

/**
 * Every threshold of the engine's document, editable live (the engine reads them at use time). For tuning turn-taking
 * by ear; values reset when the engine restarts.
 */
export function TunablesPanel() {
  const [snapshot, setSnapshot] = useState<Snapshot | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => request('tunables/get', {}).then(setSnapshot, (e: Error) => setError(e.message));
  useEffect(() => void load(), []);

  const change = async (path: string, value: number | boolean | string) => {
    try {
      await request('tunables/set', { path, value });
      setError(null);
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  if (!snapshot) return <p class="muted small">{error ?? 'Loading thresholds…'}</p>;
  return (
    <section class="tunables" aria-labelledby="tunables-heading" data-testid="tunables-panel">
      <h2 id="tunables-heading">Debug: thresholds</h2>
      {error && (
        <p class="notice" role="alert">
          {error}
        </p>
      )}
      {Object.entries(snapshot).map(([section, values]) => (
        <details key={section}>
          <summary>{section}</summary>
          {Object.entries(values).map(([key, value]) => {
            const path = `${section}.${key}`;
            return (
              <label class="tunable" key={path}>
                <span>{key}</span>
                {typeof value === 'boolean' ? (
                  <input
                    type="checkbox"
                    checked={value}
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
                  <input type="text" value={value} onChange={(e) => void change(path, (e.target as HTMLInputElement).value)} />
                )}
              </label>
            );
          })}
        </details>
      ))}
    </section>
  );
}
