// GET {baseUrl}/models for the settings dropdown and the "test connection" button. OpenAI, Ollama (/v1), LM Studio,
// llama.cpp server and vLLM all answer { data: [{ id }] }.
import { remoteLlmTunables } from '../tunables';
import { authHeaders, modelsUrl, type RemoteLlmConfig } from './config';
import { RemoteLlmError } from './errors';
import { classifyFailure, httpError, linkedController, Watchdog, type RemoteDeps } from './request';

const MAX_MODELS = 500;

export async function listModels(
  config: Pick<RemoteLlmConfig, 'baseUrl' | 'apiKey'>,
  deps: RemoteDeps,
  signal?: AbortSignal,
): Promise<string[]> {
  const { ctrl, unlink } = linkedController(signal);
  const watchdog = new Watchdog(deps.clock, () => ctrl.abort());
  watchdog.arm('first_token', remoteLlmTunables.modelsTimeoutMs);
  try {
    let res: Response;
    let body: string;
    try {
      res = await deps.fetch(modelsUrl(config), {
        method: 'GET',
        headers: { Accept: 'application/json', ...authHeaders(config) },
        signal: ctrl.signal,
      });
      if (!res.ok) throw await httpError(res, config.apiKey);
      body = await res.text();
    } catch (e) {
      throw classifyFailure(e, { userSignal: signal, watchdog, during: 'connect' });
    }
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new RemoteLlmError('malformed_stream', 'The model list from the server is not JSON.');
    }
    const data = (json as { data?: unknown }).data;
    if (!Array.isArray(data)) throw new RemoteLlmError('malformed_stream', 'The server did not send a model list.');
    const ids = data
      .map((m) => (typeof m === 'object' && m !== null ? (m as { id?: unknown }).id : undefined))
      .filter((id): id is string => typeof id === 'string' && id.length > 0 && id.length <= 256);
    return [...new Set(ids)].sort((a, b) => a.localeCompare(b)).slice(0, MAX_MODELS);
  } finally {
    watchdog.disarm();
    unlink();
  }
}

/** "Test connection": lists models and says whether the chosen one is among them. Never throws. */
export async function testConnection(
  config: Pick<RemoteLlmConfig, 'baseUrl' | 'apiKey'> & { model?: string },
  deps: RemoteDeps,
  signal?: AbortSignal,
): Promise<{ ok: true; models: string[]; modelFound: boolean | null } | { ok: false; error: RemoteLlmError }> {
  try {
    const models = await listModels(config, deps, signal);
    return { ok: true, models, modelFound: config.model ? models.includes(config.model) : null };
  } catch (e) {
    return {
      ok: false,
      error: e instanceof RemoteLlmError ? e : new RemoteLlmError('unreachable', 'Could not connect to the model server.'),
    };
  }
}
