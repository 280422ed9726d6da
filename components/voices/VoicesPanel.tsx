import { useEffect, useRef, useState } from 'preact/hooks';
import type { ClonedVoice } from '../../core/protocol';
import { request } from '../ui/runtime';
import {
  CONSENT_STATEMENT,
  MAX_CLONE_UPLOAD_BYTES,
  Recorder,
  decodeAudioFile,
  prepareClip,
  type PreparedClip,
} from './clone-audio';
import { CloneRow } from './CloneRow';
import { useVoices, voiceLabel } from './useVoices';
import { ImportVoiceFile } from './VoiceFileActions';
import { TTS_BUNDLE } from '../../models/registry';

type Busy = { kind: 'preview'; voiceId: string } | { kind: 'clone' } | null;

/** Licence and attribution of a preset voice, from the pinned weights manifest (docs/tts.md). */
function presetLicence(id: string): { license: string; attribution: string } | null {
  const f = TTS_BUNDLE.files.find((x) => x.role === `voice.${id}`);
  return f?.license && f.attribution ? { license: f.license, attribution: f.attribution } : null;
}

/** Settings → Voices: the bundle's preset voices with a preview, and consent-gated voice cloning. */
export function VoicesPanel() {
  const { voices, error: loadError, refresh } = useVoices();
  const [busy, setBusy] = useState<Busy>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);

  const preview = async (voiceId: string) => {
    setError(null);
    setBusy({ kind: 'preview', voiceId });
    try {
      await request('voices/preview', { voiceId }, 90_000);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(null);
    }
  };

  if (!voices) {
    return (
      <section class="voices" aria-labelledby="voices-heading" data-testid="voices-panel">
        <h2 id="voices-heading">Voices</h2>
        <p class={loadError ? 'chars-error' : 'muted'} role={loadError ? 'alert' : undefined}>
          {loadError ?? 'Loading the voice model…'}
        </p>
      </section>
    );
  }

  const previewing = (id: string) => busy?.kind === 'preview' && busy.voiceId === id;
  return (
    <section class="voices" aria-labelledby="voices-heading" data-testid="voices-panel">
      <h2 id="voices-heading">Voices</h2>
      <p class="chars-hint">
        Voice: Kyutai Pocket TTS (CC BY 4.0), ONNX export by KevinAHM. Each built-in voice lists its licence and source recording.
        Choose a character’s voice in Characters → Edit.
      </p>
      {!voices.ready && <p class="muted">{voices.message}</p>}
      {voices.presets.length > 0 && (
        <ul class="voice-list" aria-label="Built-in voices">
          {voices.presets.map((v) => (
            <li class="voice-item" key={v.id} data-testid={`voice-${v.id}`}>
              <span class="chars-name">{voiceLabel(v.name)}</span>
              <span class="chars-tag">built-in</span>
              {presetLicence(v.id) && (
                <span
                  class="muted small voice-licence"
                  data-testid={`voice-licence-${v.id}`}
                  title={presetLicence(v.id)?.attribution}
                >
                  {presetLicence(v.id)?.license} · {presetLicence(v.id)?.attribution}
                </span>
              )}
              <button
                type="button"
                class="button"
                disabled={busy !== null}
                onClick={() => void preview(v.id)}
                aria-label={`Preview ${voiceLabel(v.name)}`}
              >
                {previewing(v.id) ? 'Playing…' : 'Preview'}
              </button>
            </li>
          ))}
        </ul>
      )}
      <h3 class="voices-sub">Your cloned voices</h3>
      {voices.clones.length === 0 ? (
        <p class="muted small">None yet.</p>
      ) : (
        <ul class="voice-list" aria-label="Cloned voices" data-testid="cloned-voices">
          {voices.clones.map((c) => (
            <CloneRow
              key={c.id}
              clone={c}
              disabled={busy !== null}
              playing={previewing(c.id)}
              onPreview={() => void preview(c.id)}
              onChanged={refresh}
              onStatus={setStatus}
              onError={setError}
            />
          ))}
        </ul>
      )}
      <ImportVoiceFile
        disabled={busy?.kind === 'clone'}
        onStart={() => {
          setError(null);
          setStatus(null);
        }}
        onImported={async (voice) => {
          await refresh();
          setStatus(imported(voice));
        }}
        onError={setError}
      />
      {voices.ready && !voices.canClone && (
        <p class="muted small">This voice model can’t clone voices: its voice encoder isn’t downloaded.</p>
      )}
      {voices.ready && voices.canClone && (
        <CloneForm
          busy={busy?.kind === 'clone'}
          disabled={busy !== null}
          onClone={async (name, clip, acceptedAt) => {
            setError(null);
            setStatus(null);
            setBusy({ kind: 'clone' });
            try {
              const made = await request(
                'voices/clone',
                { name, wavBase64: clip.wavBase64, consent: { statement: CONSENT_STATEMENT, acceptedAt } },
                120_000,
              );
              setStatus(`“${made.name}” is ready. It is a synthetic voice; pick it for a character in Characters → Edit.`);
              await refresh();
              return true;
            } catch (e) {
              setError((e as Error).message);
              return false;
            } finally {
              setBusy(null);
            }
          }}
        />
      )}
      <div aria-live="polite">
        {status && (
          <p class="chars-ok" data-testid="voices-status">
            {status}
          </p>
        )}
        {error && (
          <p class="chars-error" role="alert" data-testid="voices-error">
            {error}
          </p>
        )}
      </div>
    </section>
  );
}

function imported(voice: ClonedVoice): string {
  return voice.usable
    ? `Imported “${voice.name}”. It is a synthetic voice; pick it for a character in Characters → Edit.`
    : `Imported “${voice.name}”, but it was made with another version of the voice model, so it is listed as unavailable.`;
}

function CloneForm(props: {
  busy: boolean;
  disabled: boolean;
  onClone(name: string, clip: PreparedClip, acceptedAt: number): Promise<boolean>;
}) {
  const [name, setName] = useState('My voice');
  const [clip, setClip] = useState<PreparedClip | null>(null);
  const [consentAt, setConsentAt] = useState<number | null>(null);
  const [recording, setRecording] = useState(false);
  const [elapsed, setElapsed] = useState(0);
  const [problem, setProblem] = useState<string | null>(null);
  const recorder = useRef<Recorder | null>(null);

  useEffect(() => {
    if (!recording) return;
    const started = Date.now();
    const id = setInterval(() => setElapsed((Date.now() - started) / 1000), 200);
    return () => clearInterval(id);
  }, [recording]);
  useEffect(() => () => recorder.current?.release(), []);

  const use = async (decode: () => Promise<Parameters<typeof prepareClip>[0]>) => {
    setProblem(null);
    setClip(null);
    try {
      setClip(prepareClip(await decode()));
    } catch (e) {
      setProblem((e as Error).message);
    }
  };

  const stop = async () => {
    const r = recorder.current;
    recorder.current = null;
    setRecording(false);
    if (r) await use(() => r.stop());
  };

  const record = async () => {
    if (recording) return stop();
    setProblem(null);
    const r = new Recorder();
    try {
      await r.start(() => void stop());
      recorder.current = r;
      setElapsed(0);
      setRecording(true);
    } catch (e) {
      r.release();
      setProblem(`The microphone could not be used: ${(e as Error).message}`);
    }
  };

  const pick = (e: Event) => {
    const input = e.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    if (file.size > MAX_CLONE_UPLOAD_BYTES) {
      setProblem('That file is too large for a voice sample. Use up to 30 seconds of speech.');
      return;
    }
    void use(async () => decodeAudioFile(await file.arrayBuffer()));
  };

  const canClone = consentAt !== null && clip !== null && name.trim().length > 0 && !props.disabled && !recording;
  return (
    <form
      class="chars-form clone-form"
      aria-labelledby="clone-heading"
      data-testid="clone-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!canClone || !clip || consentAt === null) return;
        void props.onClone(name.trim(), clip, consentAt).then((ok) => {
          if (ok) {
            setClip(null);
            setConsentAt(null);
          }
        });
      }}
    >
      <h3 id="clone-heading" class="voices-sub">
        Clone a voice
      </h3>
      <p class="chars-hint">
        Record or upload up to 30 seconds of clear speech by one person. The result is a synthetic voice stored only in this
        browser.
      </p>
      <label class="chars-field">
        <span>Name</span>
        <input type="text" value={name} maxLength={60} onInput={(e) => setName(e.currentTarget.value)} data-testid="clone-name" />
      </label>
      <div class="chars-actions">
        <button
          type="button"
          class={`button ${recording ? 'primary' : ''}`}
          onClick={() => void record()}
          disabled={props.disabled}
          data-testid="clone-record"
        >
          {recording ? `Stop recording (${Math.floor(elapsed)} s of 30)` : 'Record'}
        </button>
        <label class="button">
          Upload a WAV…
          <input
            type="file"
            accept="audio/wav,audio/x-wav,.wav,audio/*"
            class="visually-hidden"
            onChange={pick}
            data-testid="clone-file"
          />
        </label>
      </div>
      {clip && (
        <p class="small" data-testid="clone-clip">
          {clip.seconds.toFixed(1)} s of audio ready.{clip.truncated ? ' Only the first 30 seconds will be used.' : ''}
        </p>
      )}
      {problem && (
        <p class="chars-error" role="alert">
          {problem}
        </p>
      )}
      <label class="clone-consent">
        <input
          type="checkbox"
          checked={consentAt !== null}
          onChange={(e) => setConsentAt(e.currentTarget.checked ? Date.now() : null)}
          data-testid="clone-consent"
        />
        <span>{CONSENT_STATEMENT}</span>
      </label>
      <button type="submit" class="button primary" disabled={!canClone} data-testid="clone-submit">
        {props.busy ? 'Cloning…' : 'Clone voice'}
      </button>
    </form>
  );
}
