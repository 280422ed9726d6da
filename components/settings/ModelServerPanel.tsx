import { useEffect, useRef, useState } from 'preact/hooks';
import { ModelServerSettings, type ConnectionState, type ModelServerForm } from '../characters';
import { originPermissionPattern, testConnection, type RemoteLlmConfig } from '../../core/remote-llm';
import { systemClock } from '../../core/tools/clock';
import { request } from '../ui/runtime';

const EMPTY: ModelServerForm = { baseUrl: '', model: '', apiKey: '', fallbackToLocal: true };

/**
 * Chrome shows its permission prompt only inside a user gesture, so this is called synchronously from the click or
 * submit handler, before anything is awaited. It resolves false when the user (or policy) declines.
 */
function askForOrigin(originPattern: string): Promise<boolean> {
  try {
    return chrome.permissions.request({ origins: [originPattern] }).catch(() => false);
  } catch {
    return Promise.resolve(false);
  }
}

const DENIED = (pattern: string) => `Chrome didn’t give Sidetalk access to ${pattern}, so it can’t talk to that server.`;

/** Settings → Model server: mounts the presentational form and does the permission, network and storage work. */
export function ModelServerPanel() {
  const [form, setForm] = useState<ModelServerForm>(EMPTY);
  const [enabled, setEnabled] = useState(false);
  const [models, setModels] = useState<string[]>([]);
  const [connection, setConnection] = useState<ConnectionState>({ state: 'idle' });
  /** The origin of a stored server today's rules refuse: it can still be removed. */
  const [unusable, setUnusable] = useState<string | null>(null);
  /** The origin saved now, and one granted by "Test connection" but not saved (given back when the panel goes). */
  const saved = useRef<string | null>(null);
  const testedOnly = useRef<string | null>(null);

  useEffect(() => {
    // The panel closes (or this view goes) with a tested server unsaved: its permission goes back. The background
    // also gives back any such grant when it starts, for a panel that closed before this ran.
    const giveBack = () => {
      const origin = testedOnly.current;
      testedOnly.current = null;
      if (origin && origin !== saved.current) void chrome.permissions.remove({ origins: [origin] }).catch(() => false);
    };
    addEventListener('pagehide', giveBack);
    return () => {
      removeEventListener('pagehide', giveBack);
      giveBack();
    };
  }, []);

  useEffect(() => {
    request('remote-llm/get', {}).then(
      ({ config, unusable: stale }) => {
        setUnusable(stale ?? null);
        if (!config) return;
        saved.current = originPermissionPattern(config.baseUrl);
        setEnabled(true);
        setForm({
          baseUrl: config.baseUrl,
          model: config.model,
          apiKey: config.apiKey ?? '',
          fallbackToLocal: config.fallbackToLocal,
        });
      },
      (e: Error) => setConnection({ state: 'error', message: e.message }),
    );
  }, []);

  const test = (target: { baseUrl: string; apiKey?: string; originPattern: string }) => {
    const granted = askForOrigin(target.originPattern); // first, inside the gesture
    setConnection({ state: 'testing' });
    void (async () => {
      if (!(await granted)) return setConnection({ state: 'error', message: DENIED(target.originPattern) });
      // A second test on another origin gives the first one's grant back, unless that is the saved server's.
      const earlier = testedOnly.current;
      if (earlier && earlier !== target.originPattern && earlier !== saved.current)
        void chrome.permissions.remove({ origins: [earlier] }).catch(() => false);
      if (target.originPattern !== saved.current) testedOnly.current = target.originPattern;
      const result = await testConnection(
        {
          baseUrl: target.baseUrl,
          ...(target.apiKey ? { apiKey: target.apiKey } : {}),
          ...(form.model ? { model: form.model } : {}),
        },
        { fetch: globalThis.fetch.bind(globalThis), clock: systemClock },
      );
      if (!result.ok) return setConnection({ state: 'error', message: result.error.message });
      setModels(result.models);
      const found = result.modelFound === false ? ` “${form.model}” is not one of them.` : '';
      setConnection({
        state: 'ok',
        message: `Connected: the server offers ${result.models.length} model${result.models.length === 1 ? '' : 's'}.${found}`,
      });
    })();
  };

  const save = (config: RemoteLlmConfig, originPattern: string) => {
    const granted = askForOrigin(originPattern); // first, inside the gesture
    void (async () => {
      if (!(await granted)) return setConnection({ state: 'error', message: DENIED(originPattern) });
      try {
        const { config: stored } = await request('remote-llm/set', { settings: { ...config, apiKey: config.apiKey ?? '' } });
        saved.current = stored ? originPermissionPattern(stored.baseUrl) : null;
        if (testedOnly.current === saved.current) testedOnly.current = null;
        setUnusable(null);
        setEnabled(stored !== null);
        setConnection({ state: 'ok', message: `Saved. Sidetalk now answers with ${config.model}.` });
      } catch (e) {
        setConnection({ state: 'error', message: (e as Error).message });
      }
    })();
  };

  const disable = () => {
    void request('remote-llm/set', { settings: null }).then(
      () => {
        saved.current = null;
        setUnusable(null);
        setEnabled(false);
        setConnection({ state: 'ok', message: 'Sidetalk answers with the built-in model again.' });
      },
      (e: Error) => setConnection({ state: 'error', message: e.message }),
    );
  };

  return (
    <div data-testid="model-server-settings">
      {unusable && (
        <p class="notice" role="status" data-testid="model-server-unusable">
          A model server saved earlier ({unusable.replace(/\/\*$/, '')}) is still stored but can’t be used any more.{' '}
          <button type="button" class="button" onClick={disable} data-testid="model-server-remove-unusable">
            Remove it
          </button>
        </p>
      )}
      <ModelServerSettings
        value={form}
        onChange={setForm}
        models={models}
        connection={connection}
        onTestConnection={test}
        onSave={save}
        onDisable={disable}
        enabled={enabled}
      />
    </div>
  );
}
