import { useEffect, useState } from 'preact/hooks';
import type { Settings } from '../../core/protocol';
import { defaultSet, defaultSetBytes, type DeviceFacts, type ModelBundle } from '../../core/weights';
import { toUserError } from '../../core/ux/user-errors';
import { request } from '../ui/runtime';
import { formatBytes, formatEta, formatSpeed, percent } from './format';
import { useWeights } from './use-weights';

interface Props {
  catalog: ModelBundle[];
  /** This computer's GPU and compute setting (core/weights/default-set.ts); null while unknown (the CPU set). */
  device: DeviceFacts | null;
  settings: Settings | null;
  onMirrorSave: (url: string) => Promise<void>;
}

const CPU_ONLY: DeviceFacts = { gpu: null, computeBackend: 'wasm' };

export function ModelsPanel({ catalog, device, settings, onMirrorSave }: Props) {
  const [snapshot, progress] = useWeights();
  const [error, setError] = useState<string | null>(null);
  const [mirror, setMirror] = useState(settings?.mirrorBaseUrl ?? '');
  useEffect(() => setMirror(settings?.mirrorBaseUrl ?? ''), [settings?.mirrorBaseUrl]);

  const run = (p: Promise<unknown>) =>
    p.then(
      () => setError(null),
      (e: Error) => setError(e.message),
    );
  const stateOf = (id: string) => snapshot?.bundles.find((b) => b.id === id);
  const missing = catalog.filter((b) => stateOf(b.id)?.status !== 'complete').map((b) => b.id);
  const usage = snapshot?.bundles.reduce((s, b) => s + b.bytesStored, 0) ?? 0;
  const defaults = defaultSet(catalog, device ?? CPU_ONLY);
  const defaultsMissing = defaults.filter((b) => stateOf(b.id)?.status !== 'complete').map((b) => b.id);
  const defaultBytes = defaultSetBytes(catalog, device ?? CPU_ONLY);

  return (
    <section class="models" aria-labelledby="models-heading" data-testid="models-panel">
      <div class="models-head">
        <h2 id="models-heading">Models</h2>
        <span class="muted">{formatBytes(usage)} stored on this computer</span>
      </div>
      <div class="default-set" data-testid="default-set" data-bytes={defaultBytes}>
        <p>
          To talk, Sidetalk needs {defaults.map((b) => b.label).join(', ')}: <strong>{formatBytes(defaultBytes)}</strong>{' '}
          <span class="muted small">({defaultBytes.toLocaleString('en-US')} bytes)</span>, downloaded once and kept on this
          computer. Licences: {[...new Set(defaults.map((b) => b.license))].join(', ')}.
        </p>
        <button
          type="button"
          class="button primary"
          disabled={defaultsMissing.length === 0 || device === null}
          onClick={() => run(request('weights/download', { bundleIds: defaultsMissing }))}
          data-testid="download-defaults"
        >
          {defaultsMissing.length === 0 ? 'Ready to talk' : `Download what talking needs (${formatBytes(defaultBytes)})`}
        </button>
      </div>
      <ul class="model-list">
        {catalog.map((bundle) => {
          const state = stateOf(bundle.id);
          const active = snapshot?.active?.bundleId === bundle.id;
          const live = active && progress?.bundleId === bundle.id ? progress : null;
          const done = live ? live.bytes : (state?.bytesStored ?? 0);
          const total = live ? live.total : (state?.totalBytes ?? bundle.files.reduce((s, f) => s + f.size, 0));
          const status = active ? 'downloading' : (state?.status ?? 'missing');
          return (
            <li class="model" key={bundle.id} data-testid={`model-${bundle.id}`} data-status={status}>
              <div class="model-title">
                <strong>{bundle.label}</strong>
                <span class="muted small">
                  {bundle.task.toUpperCase()} · {bundle.license}
                  {defaults.includes(bundle) ? '' : ' · optional'}
                </span>
              </div>
              <div
                class="progress"
                role="progressbar"
                aria-label={`${bundle.label} download`}
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={Math.round(percent(done, total))}
              >
                <div class="progress-fill" style={{ width: `${percent(done, total)}%` }} />
              </div>
              <div class="model-meta small">
                <span data-testid="model-bytes">
                  {status === 'complete' ? `Ready · ${formatBytes(done)}` : `${formatBytes(done)} of ${formatBytes(total)}`}
                </span>
                {live && (
                  <span class="muted">
                    {[formatSpeed(live.speedBps), formatEta(live.etaSeconds)].filter(Boolean).join(' · ')}
                  </span>
                )}
              </div>
              <div class="model-actions">
                {status !== 'complete' && !active && (
                  <button
                    type="button"
                    class="button"
                    onClick={() => run(request('weights/download', { bundleIds: [bundle.id] }))}
                  >
                    {status === 'partial' ? 'Resume' : 'Download'}
                  </button>
                )}
                {active && (
                  <button type="button" class="button" onClick={() => run(request('weights/cancel', {}))}>
                    Pause
                  </button>
                )}
                {(state?.bytesStored ?? 0) > 0 && !active && (
                  <button type="button" class="button" onClick={() => run(request('weights/delete', { bundleId: bundle.id }))}>
                    Delete
                  </button>
                )}
              </div>
            </li>
          );
        })}
      </ul>
      {snapshot?.lastError && snapshot.lastError.code !== 'aborted' && (
        <p class="notice" role="alert" data-testid="models-error">
          {toUserError(snapshot.lastError.message, 'download').sentence}
        </p>
      )}
      {error && (
        <p class="notice" role="alert">
          {error}
        </p>
      )}
      <button
        type="button"
        class="button primary"
        disabled={missing.length === 0}
        onClick={() => run(request('weights/download', { bundleIds: missing }))}
        data-testid="download-all"
      >
        {missing.length === 0 ? 'All models are ready offline' : 'Download all for offline use'}
      </button>
      <form
        class="mirror"
        onSubmit={(e) => {
          e.preventDefault();
          void run(onMirrorSave(mirror));
        }}
      >
        <label for="mirror-url">Download from (mirror URL, empty for huggingface.co)</label>
        <div class="mirror-row">
          <input
            id="mirror-url"
            type="url"
            value={mirror}
            placeholder="https://huggingface.co"
            onInput={(e) => setMirror((e.target as HTMLInputElement).value)}
            data-testid="mirror-input"
          />
          <button type="submit" class="button">
            Save
          </button>
        </div>
      </form>
    </section>
  );
}
