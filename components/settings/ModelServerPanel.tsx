import { useEffect, useState } from 'preact/hooks';
import { ModelServerSettings, type ConnectionState, type ModelServerForm } from '../characters';
import { testConnection, type RemoteLlmConfig } from '../../core/remote-llm';
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

  useEffect(() => {
    request('remote-llm/get', {}).then(
      ({ config }) => {
        if (!config) return;
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
        const { config: saved } = await request('remote-llm/set', { settings: { ...config, apiKey: config.apiKey ?? '' } });
        setEnabled(saved !== null);
        setConnection({ state: 'ok', message: `Saved. Sidetalk now answers with ${config.model}.` });
      } catch (e) {
        setConnection({ state: 'error', message: (e as Error).message });
      }
    })();
  };

  const disable = () => {
    void request('remote-llm/set', { settings: null }).then(
      () => {
        setEnabled(false);
        setConnection({ state: 'ok', message: 'Sidetalk answers with the built-in model again.' });
      },
      (e: Error) => setConnection({ state: 'error', message: e.message }),
    );
  };

  return (
    <div data-testid="model-server-settings">
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
