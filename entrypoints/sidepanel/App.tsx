import { useEffect, useState } from 'preact/hooks';
import { EngineStatus } from '../../components/ui/EngineStatus';
import { PermissionNotice } from '../../components/ui/PermissionNotice';
import { usePermission, useAppStatus, useSettings } from '../../components/ui/runtime';
import { ModelsPanel } from '../../components/models/ModelsPanel';
import { MODEL_BUNDLES } from '../../models/registry';

export function SidePanelApp() {
  const status = useAppStatus(true);
  const [settings, updateSettings, settingsError] = useSettings();
  const mic = usePermission('microphone');
  const [draft, setDraft] = useState('');
  const [composerNote, setComposerNote] = useState<string | null>(null);
  const [settingsOpen, setSettingsOpen] = useState(false);

  useEffect(() => {
    if (settings?.theme && settings.theme !== 'system') document.documentElement.dataset.theme = settings.theme;
    else delete document.documentElement.dataset.theme;
  }, [settings?.theme]);

  const listening = settings?.handsFree ?? false;
  const canListen = mic === 'granted';

  return (
    <main class="panel">
      <header class="panel-header">
        <h1>Sidetalk</h1>
        <EngineStatus status={status} />
        <button
          type="button"
          class="button"
          aria-expanded={settingsOpen}
          aria-controls="settings-drawer"
          onClick={() => setSettingsOpen(!settingsOpen)}
          data-testid="settings-button"
        >
          Settings
        </button>
      </header>
      {settingsOpen && (
        <aside id="settings-drawer" class="drawer" aria-label="Settings">
          <ModelsPanel
            catalog={MODEL_BUNDLES}
            settings={settings}
            onMirrorSave={(url) => updateSettings({ mirrorBaseUrl: url.trim() })}
          />
        </aside>
      )}

      <section class="stage" aria-label="Assistant">
        <div class="avatar-slot" data-testid="avatar-slot">
          <p class="muted">The avatar appears here once the voice models are ready.</p>
        </div>
      </section>

      <section class="transcript" aria-label="Conversation" aria-live="polite" data-testid="transcript">
        <p class="empty muted">Say hello, or type a question below. Everything stays on this computer.</p>
      </section>

      {settingsError && (
        <p class="notice" role="alert">
          Settings could not be saved: {settingsError}
        </p>
      )}
      <PermissionNotice device="microphone" state={mic} />

      <footer class="controls">
        <button
          type="button"
          class={`orb ${listening ? 'on' : ''}`}
          aria-pressed={listening}
          disabled={!canListen || !settings}
          title={canListen ? 'Hands-free listening (Alt+Shift+L)' : 'Grant microphone access first'}
          onClick={() => void updateSettings({ handsFree: !listening })}
          data-testid="orb"
        >
          <span class="visually-hidden">{listening ? 'Stop listening' : 'Start listening'}</span>
        </button>
        <form
          class="composer"
          onSubmit={(e) => {
            e.preventDefault();
            // Kept in the box until the language model can take it, so nothing the user typed is lost.
            setComposerNote('The language model is not loaded yet. Download the models in Settings first.');
          }}
        >
          <label class="visually-hidden" for="composer-input">
            Type a message
          </label>
          <input
            id="composer-input"
            value={draft}
            onInput={(e) => setDraft((e.target as HTMLInputElement).value)}
            placeholder="Type instead of talking…"
            autocomplete="off"
          />
          <button type="submit" class="button primary" disabled={!draft.trim()}>
            Send
          </button>
        </form>
      </footer>
      {composerNote && (
        <p class="muted" role="status">
          {composerNote}
        </p>
      )}
    </main>
  );
}
