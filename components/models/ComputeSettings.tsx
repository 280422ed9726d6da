import type { OffscreenStatus, Settings } from '../../core/protocol';
import { TEST_HOOKS } from '../../core/build-flags';

interface Props {
  settings: Settings | null;
  onChange: (patch: Partial<Settings>) => void;
  /** Where the voice runs now (null until the voice model has loaded). */
  voice?: OffscreenStatus['tts'];
  /** Which path the language model decodes on (null until it has loaded). */
  llm?: OffscreenStatus['llm'];
  /** Where speech recognition and the language model run (null before the conversation started). */
  speech?: OffscreenStatus['speech'];
}

/** Where the speech models run; on the CPU, why, when the GPU was wanted but did not serve. */
export function speechLine(speech: NonNullable<OffscreenStatus['speech']>): string {
  if (speech.runtime === 'starting') return 'The speech models are starting…';
  if (speech.runtime === 'webgpu') return 'Speech recognition and the language model run on the GPU (WebGPU).';
  return `Speech recognition and the language model run on the CPU${speech.reason ? ` (${speech.reason})` : ''}.`;
}

/** One short line: the decode path, and why the plain one when it is (docs/llm-static-kv.md, "Fallback"). */
export function llmDecodeLine(llm: NonNullable<OffscreenStatus['llm']>): string {
  const fault = llm.plainFault ? ` The standard path gave wrong tokens on this GPU (${llm.plainFault}).` : '';
  // Not a fault: answers are the same, a long prompt's first token comes later (docs/llm-static-kv.md).
  const logits = llm.allLogits ? ` Prompts compute the scores of every position, not only the last (${llm.allLogits}).` : '';
  if (llm.decode === 'captured')
    return `The language model decodes through a recorded GPU graph, replayed once per token (graph capture).${fault}${logits}`;
  if (llm.decode === 'static')
    return `The language model decodes on its fixed-size cache, without graph capture.${fault}${logits}`;
  return `The language model decodes on the standard path${llm.plainReason ? `: ${llm.plainReason}` : ''}.${logits}`;
}

function voiceLine(voice: NonNullable<OffscreenStatus['tts']>): string {
  if (voice.backend === 'webgpu') return 'The voice runs on the GPU (WebGPU, passed this device’s self-test).';
  const threads = `${voice.threads} CPU thread${voice.threads === 1 ? '' : 's'}`;
  if (voice.reason) return `The voice moved to the CPU (${threads}): the GPU gave bad audio (${voice.reason}).`;
  // Nothing more to download: the CPU voice is part of every default set (docs/models.md § First download).
  if (voice.gpuRefused) return `The voice runs on the CPU (${threads}): ${voice.gpuRefused}.`;
  return `The voice runs on the CPU (${threads}).`;
}

const LANGUAGES: [string, string][] = [
  ['en', 'English'],
  ['de', 'German'],
  ['fr', 'French'],
  ['es', 'Spanish'],
  ['it', 'Italian'],
  ['pt', 'Portuguese'],
  ['nl', 'Dutch'],
  ['ja', 'Japanese'],
  ['zh', 'Chinese'],
];

/** Which speech recogniser to use, in which language, and whether models may use the GPU. */
export function ComputeSettings({ settings, onChange, voice, llm, speech }: Props) {
  if (!settings) return null;
  const whisper = settings.asrModel === 'whisper-base';
  return (
    <section class="compute" aria-labelledby="compute-heading" data-testid="compute-settings">
      <h2 id="compute-heading">Speech and performance</h2>
      <label class="field">
        <span>Speech recognition</span>
        <select
          value={settings.asrModel}
          onChange={(e) => onChange({ asrModel: (e.target as HTMLSelectElement).value as Settings['asrModel'] })}
          data-testid="asr-select"
        >
          <option value="moonshine-base">Moonshine (English, fastest)</option>
          <option value="whisper-base">Whisper (many languages)</option>
        </select>
      </label>
      {whisper && (
        <label class="field">
          <span>Language you speak</span>
          <select
            value={settings.speechLanguage}
            onChange={(e) => onChange({ speechLanguage: (e.target as HTMLSelectElement).value })}
          >
            {LANGUAGES.map(([code, name]) => (
              <option value={code} key={code}>
                {name}
              </option>
            ))}
          </select>
        </label>
      )}
      <label class="field">
        <span>Run models on</span>
        <select
          value={settings.computeBackend}
          onChange={(e) => onChange({ computeBackend: (e.target as HTMLSelectElement).value as Settings['computeBackend'] })}
          data-testid="backend-select"
        >
          <option value="auto">GPU when available (WebGPU)</option>
          <option value="wasm">CPU only (slower)</option>
        </select>
      </label>
      {TEST_HOOKS && (
        <label class="switch">
          <span>Show the debug panel (live thresholds)</span>
          <input
            type="checkbox"
            checked={settings.debugPanel}
            onChange={(e) => onChange({ debugPanel: (e.target as HTMLInputElement).checked })}
            data-testid="debug-toggle"
          />
        </label>
      )}
      {speech && (
        <p class="muted small" data-testid="speech-backend">
          {speechLine(speech)}
        </p>
      )}
      {voice && (
        <p class="muted small" data-testid="voice-backend">
          {voiceLine(voice)}
        </p>
      )}
      {llm && (
        <p class="muted small" data-testid="llm-decode">
          {llmDecodeLine(llm)}
        </p>
      )}
      <p class="muted small">Changes apply to the next thing you say; switching models reloads them (a few seconds).</p>
    </section>
  );
}
