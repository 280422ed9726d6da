/**
 * Loading transformers.js parts at the pinned commit, and only there. In @huggingface/transformers 4.3.2 some file
 * discovery drops the `revision` option: AutoTokenizer probes `tokenizer_config.json` and pipeline() resolves the
 * model's files at `main` (docs/models.md, "transformers.js and the pinned commit"). On the real hub that is a request
 * for whatever `main` holds today, and with the weights cached offline it fails. So tokenizers, processors and the ASR
 * pipeline are assembled here from files read at the pinned URL: from the weights cache first (the same key
 * transformers.js uses), over HTTP from `env.remoteHost` otherwise (Node tests, a first load from the hub).
 */
import * as tjs from '@huggingface/transformers';
import { env, PreTrainedTokenizer, type Processor } from '@huggingface/transformers';
import { buildFileUrl } from '../core/weights/registry';

/** The Cache Storage the weights manager writes and transformers.js reads (docs/weights.md). */
const WEIGHTS_CACHE = 'transformers-cache';

/** The same URL the weights manager stored the file under (core/weights/registry.ts builds both). */
export function pinnedUrl(repo: string, revision: string, file: string): string {
  return buildFileUrl({ repo: { type: 'model', id: repo, revision }, path: file }, env.remoteHost);
}

type TokenizerClass = new (json: unknown, config: unknown) => PreTrainedTokenizer;

/** The tokenizer class a tokenizer_config names ("…Fast" dropped), as AutoTokenizer picks it; the base class otherwise. */
function tokenizerClass(config: { tokenizer_class?: string }): TokenizerClass {
  const name = config.tokenizer_class?.replace(/Fast$/, '') ?? 'PreTrainedTokenizer';
  const cls = (tjs as unknown as Record<string, unknown>)[name];
  const isTokenizer = typeof cls === 'function' && (cls === PreTrainedTokenizer || cls.prototype instanceof PreTrainedTokenizer);
  return (isTokenizer ? cls : PreTrainedTokenizer) as TokenizerClass;
}

async function pinnedResponse(repo: string, revision: string, file: string): Promise<Response> {
  const url = pinnedUrl(repo, revision, file);
  if (env.useBrowserCache && typeof caches !== 'undefined') {
    const hit = await caches
      .open(WEIGHTS_CACHE)
      .then((c) => c.match(url))
      .catch(() => undefined);
    if (hit) return hit;
  }
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${file} of ${repo}@${revision.slice(0, 7)}: HTTP ${res.status}`);
  return res;
}

/** The bytes of one pinned file (an ONNX graph read outside transformers.js). */
export async function pinnedBytes(repo: string, revision: string, file: string): Promise<Uint8Array> {
  return new Uint8Array(await (await pinnedResponse(repo, revision, file)).arrayBuffer());
}

/** Files served in place of the pinned ones while a load that asked for it runs (URL → bytes). */
const replacedFiles = new Map<string, Uint8Array>();
/** Without a weights cache (Node) transformers.js reads each fetched file back from the cache it was given. */
const heldFiles = new Map<string, Uint8Array>();
let savedCacheSettings: { useCustomCache: boolean; customCache: unknown } | null = null;

const keyOf = (request: RequestInfo | URL) =>
  typeof request === 'string' ? request : 'url' in request ? request.url : request.href;
const bytesResponse = (bytes: Uint8Array) =>
  new Response(bytes as BlobPart, { headers: { 'content-length': String(bytes.byteLength) } });

/**
 * Runs `load` (a transformers.js from_pretrained) with one pinned file's bytes replaced by `bytes`: a graph the product
 * rewrote at load (models/llm/last-logits.ts). transformers.js reads files through `env.customCache` when one is set
 * (4.3.2, utils/cache.js), under the same URL the weights manager stored them; every other file is passed to the weights
 * cache as before (or fetched, where there is none). Loads that overlap (a reload after a lost GPU) share one wrapper,
 * and the settings it replaced come back when the last of them ends.
 */
export async function withPinnedFileReplaced<T>(
  repo: string,
  revision: string,
  file: string,
  bytes: Uint8Array,
  load: () => Promise<T>,
): Promise<T> {
  const url = pinnedUrl(repo, revision, file);
  if (!savedCacheSettings) {
    const inner =
      env.useBrowserCache && typeof caches !== 'undefined' ? await caches.open(WEIGHTS_CACHE).catch(() => null) : null;
    savedCacheSettings = { useCustomCache: env.useCustomCache, customCache: env.customCache };
    env.useCustomCache = true;
    env.customCache = {
      match: async (request: RequestInfo | URL) => {
        const key = keyOf(request);
        const replaced = replacedFiles.get(key);
        if (replaced) return bytesResponse(replaced);
        if (inner) return inner.match(request);
        const held = heldFiles.get(key);
        return held ? bytesResponse(held) : undefined;
      },
      put: async (request: RequestInfo | URL, response: Response) => {
        if (inner) await inner.put(request, response);
        else heldFiles.set(keyOf(request), new Uint8Array(await response.arrayBuffer()));
      },
    } as typeof env.customCache;
  }
  replacedFiles.set(url, bytes);
  try {
    return await load();
  } finally {
    replacedFiles.delete(url);
    if (replacedFiles.size === 0 && savedCacheSettings) {
      env.useCustomCache = savedCacheSettings.useCustomCache;
      env.customCache = savedCacheSettings.customCache as typeof env.customCache;
      savedCacheSettings = null;
      heldFiles.clear();
    }
  }
}

export async function pinnedJson<T = Record<string, unknown>>(repo: string, revision: string, file: string): Promise<T> {
  return (await (await pinnedResponse(repo, revision, file)).json()) as T;
}

export interface PinnedTokenizerOptions {
  /**
   * The repo ships its chat template as `chat_template.jinja` (newer exports keep it out of tokenizer_config.json);
   * transformers.js 4.3.2 reads only the config's `chat_template`, so the file's text is put there, and wins, as it
   * does in transformers.
   */
  chatTemplateFile?: boolean;
}

export async function loadPinnedTokenizer(
  repo: string,
  revision: string,
  options: PinnedTokenizerOptions = {},
): Promise<PreTrainedTokenizer> {
  const [json, config, template] = await Promise.all([
    pinnedJson(repo, revision, 'tokenizer.json'),
    pinnedJson<{ tokenizer_class?: string; chat_template?: unknown }>(repo, revision, 'tokenizer_config.json'),
    options.chatTemplateFile
      ? pinnedResponse(repo, revision, 'chat_template.jinja').then((r) => r.text())
      : Promise.resolve(null),
  ]);
  if (template !== null) config.chat_template = template;
  return new (tokenizerClass(config))(json, config);
}

/** A speech processor (feature extractor + tokenizer) for `family`, every file read at the pinned commit. */
export async function loadPinnedSpeechProcessor(
  repo: string,
  revision: string,
  family: 'moonshine' | 'whisper',
  tokenizer: PreTrainedTokenizer,
): Promise<Processor> {
  const feature_extractor = await tjs.AutoFeatureExtractor.from_pretrained(repo, { revision });
  const cls = family === 'whisper' ? tjs.WhisperProcessor : tjs.MoonshineProcessor;
  return new (cls as unknown as new (config: object, components: object, chatTemplate: null) => Processor)(
    {},
    { feature_extractor, tokenizer },
    null,
  );
}
