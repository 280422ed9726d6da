import { useState } from 'preact/hooks';
import { normaliseBaseUrl, originPermissionPattern, parseRemoteLlmSettings, type RemoteLlmConfig } from '../../core/remote-llm';

export interface ModelServerForm {
  baseUrl: string;
  model: string;
  apiKey: string;
  fallbackToLocal: boolean;
}

export type ConnectionState =
  { state: 'idle' } | { state: 'testing' } | { state: 'ok'; message: string } | { state: 'error'; message: string };

interface Props {
  value: ModelServerForm;
  onChange(next: ModelServerForm): void;
  /** Model ids from GET /v1/models (after a successful test); empty shows a free text field. */
  models: readonly string[];
  connection: ConnectionState;
  /**
   * Runs in the click handler (a user gesture): the parent should call chrome.permissions.request for
   * `originPattern` first, then listModels/testConnection, and update `models` and `connection`.
   */
  onTestConnection(target: { baseUrl: string; apiKey?: string; originPattern: string }): void;
  /** Also a user gesture: request the origin permission, then store the config. */
  onSave(config: RemoteLlmConfig, originPattern: string): void;
  /** Stop using the server (the local model answers again). */
  onDisable(): void;
  /** Whether a saved server is in use now. */
  enabled: boolean;
}

/** "Bring your own model server" settings. Presentational: validation here, network and permissions in the parent. */
export function ModelServerSettings({
  value,
  onChange,
  models,
  connection,
  onTestConnection,
  onSave,
  onDisable,
  enabled,
}: Props) {
  const [fieldError, setFieldError] = useState<{ field: string; error: string } | null>(null);
  const set = (patch: Partial<ModelServerForm>) => onChange({ ...value, ...patch });
  const base = value.baseUrl.trim() ? normaliseBaseUrl(value.baseUrl) : null;
  const pattern = base?.ok ? originPermissionPattern(base.url) : null;
  const modelChoices = value.model && !models.includes(value.model) ? [value.model, ...models] : models;

  const test = () => {
    if (!base || !base.ok) {
      setFieldError({ field: 'baseUrl', error: base && !base.ok ? base.error : 'Enter the server address' });
      return;
    }
    setFieldError(null);
    const key = value.apiKey.trim();
    onTestConnection({ baseUrl: base.url, ...(key ? { apiKey: key } : {}), originPattern: originPermissionPattern(base.url) });
  };

  const save = (e: Event) => {
    e.preventDefault();
    const parsed = parseRemoteLlmSettings({ ...value, apiKey: value.apiKey.trim() || undefined });
    if (!parsed.ok) {
      setFieldError({ field: parsed.field, error: parsed.error });
      return;
    }
    setFieldError(null);
    onSave(parsed.config, originPermissionPattern(parsed.config.baseUrl));
  };

  const errorFor = (field: string) =>
    fieldError?.field === field ? (
      <p class="chars-error" role="alert" id={`ms-${field}-error`}>
        {fieldError.error}
      </p>
    ) : null;

  return (
    <form class="chars-form" onSubmit={save} aria-labelledby="ms-heading" noValidate>
      <h2 id="ms-heading">Model server</h2>
      <p class="chars-hint">
        Use an OpenAI-compatible server (Ollama, LM Studio, llama.cpp, vLLM) instead of the built-in model. While it is in use,
        what you say, the conversation so far, tool results and the page text you ask about are sent to that server. Use https://
        (http:// only for a server on this computer). Stop using it here; Sidetalk then gives back its access.
      </p>
      <label class="chars-field">
        <span>Server address</span>
        <input
          type="url"
          inputMode="url"
          placeholder="http://localhost:11434/v1"
          value={value.baseUrl}
          autoComplete="off"
          spellcheck={false}
          aria-invalid={fieldError?.field === 'baseUrl'}
          aria-describedby="ms-baseUrl-error"
          onInput={(e) => set({ baseUrl: e.currentTarget.value })}
        />
      </label>
      {errorFor('baseUrl')}
      {pattern && <p class="chars-hint">Sidetalk will ask Chrome for access to {pattern}</p>}
      <label class="chars-field">
        <span>API key (optional)</span>
        <input
          type="password"
          value={value.apiKey}
          autoComplete="off"
          spellcheck={false}
          aria-invalid={fieldError?.field === 'apiKey'}
          aria-describedby="ms-apiKey-error"
          onInput={(e) => set({ apiKey: e.currentTarget.value })}
        />
      </label>
      {errorFor('apiKey')}
      <label class="chars-field">
        <span>Model</span>
        {modelChoices.length > 0 ? (
          <select
            value={value.model}
            aria-invalid={fieldError?.field === 'model'}
            aria-describedby="ms-model-error"
            onChange={(e) => set({ model: e.currentTarget.value })}
          >
            {!value.model && <option value="">Choose a model…</option>}
            {modelChoices.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        ) : (
          <input
            type="text"
            placeholder="Test the connection to list models"
            value={value.model}
            spellcheck={false}
            aria-invalid={fieldError?.field === 'model'}
            aria-describedby="ms-model-error"
            onInput={(e) => set({ model: e.currentTarget.value })}
          />
        )}
      </label>
      {errorFor('model')}
      <label class="switch">
        <span>Fall back to the local model if the server fails</span>
        <input
          type="checkbox"
          checked={value.fallbackToLocal}
          onChange={(e) => set({ fallbackToLocal: e.currentTarget.checked })}
        />
      </label>
      <div class="chars-actions">
        <button type="button" class="button" onClick={test} disabled={connection.state === 'testing'}>
          {connection.state === 'testing' ? 'Testing…' : 'Test connection'}
        </button>
        <button type="submit" class="button primary">
          Save and use
        </button>
        {enabled && (
          <button type="button" class="button" onClick={onDisable}>
            Stop using server
          </button>
        )}
      </div>
      <div aria-live="polite">
        {connection.state === 'ok' && <p class="chars-ok">{connection.message}</p>}
        {connection.state === 'error' && <p class="chars-error">{connection.message}</p>}
      </div>
    </form>
  );
}
