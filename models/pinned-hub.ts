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
